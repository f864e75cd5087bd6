import { readFileSync } from 'node:fs';
import { median } from './stats';

/** The parts of a V8 `.cpuprofile` (node --cpu-prof) read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Where a sample's time is put: the part of the first function on its stack, from the leaf up, whose
 * script matches one of these. Node's own modules and builtins (a socket write, JSON.parse, a timer)
 * count for the package or code that called them: postgres.js's socket writes are postgres.js's.
 */
const PARTS: [string, RegExp][] = [
  [
    'Temporal client (workflow.start: its options, payloads, protobuf, gRPC over HTTP/2)',
    /node_modules\/(@temporalio|@grpc|protobufjs|@protobufjs|long|proto3-json-serializer|ms|nexus-rpc)\//,
  ],
  ['drizzle-orm (query building, result mapping)', /node_modules\/drizzle-orm\//],
  ['postgres.js (protocol, parsing, socket writes)', /node_modules\/postgres\//],
  ['zod (request validation)', /node_modules\/zod\//],
  [
    'Fastify (routing, hooks, body parsing, reply)',
    /node_modules\/(fastify|@fastify|find-my-way|avvio|fast-json-stringify|fast-querystring|fastify-plugin|fastify-type-provider-zod|light-my-request|secure-json-parse|fast-content-type-parse|process-warning|toad-cache|rfdc|fast-uri|abstract-logging)\//,
  ],
  ['pino (logging)', /node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact|thread-stream|@pinojs)\//],
  ['prom-client (request latency histogram)', /node_modules\/(prom-client|tdigest|bintrees)\//],
  ['other packages', /node_modules\//],
  [
    'our code (auth, validation, the use case, views, the row mapping of prepared statements, the Postgres deadline)',
    /^file:\/\/.*(\/src\/|\/server\.ts$)/,
  ],
];
const NODE = 'Node core, called by none of the above (HTTP parsing, the event loop, microtasks)';
const GC = 'garbage collection';
const UNATTRIBUTED = 'V8, unattributed (program)';

export interface CpuShare {
  where: string;
  /** Share of the profiled time (idle excluded). */
  share: number;
  /** Milliseconds of profiled time. */
  ms: number;
}

/**
 * Time of a V8 CPU profile by part of the stack (PARTS), idle excluded, over the samples taken
 * within [fromUs, toUs] (V8's monotonic clock, the same as process.hrtime on Linux) when given.
 * A profile's time is wall time between samples while the thread was not idle: on a loaded machine
 * it includes time the process waited for a core (a socket write that woke Postgres, say), so read
 * it as shares.
 */
export function cpuProfileShares(
  file: string,
  window?: { fromUs: number; toUs: number },
): { shares: CpuShare[]; totalMs: number; samples: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The part of the nearest frame from `id` up that has one; null when none does.
  const owner = new Map<number, string | null>();
  const ownerOf = (id: number): string | null => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const { url } = byId.get(id)!.callFrame;
    const own = url ? (PARTS.find(([, re]) => re.test(url))?.[0] ?? null) : null;
    const up = parent.get(id);
    const part = own ?? (up === undefined ? null : ownerOf(up));
    owner.set(id, part);
    return part;
  };
  const partOf = (id: number): string | null => {
    const { functionName, url } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return null;
    if (functionName === '(garbage collector)') return GC;
    if (functionName === '(program)' || functionName === '(root)') return UNATTRIBUTED;
    return ownerOf(id) ?? (url.startsWith('node:') || parent.has(id) ? NODE : UNATTRIBUTED);
  };
  const us = new Map<string, number>();
  const interval = median(profile.timeDeltas);
  let t = profile.startTime;
  let total = 0;
  let samples = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const part = partOf(profile.samples[i]!);
    if (part === null) continue;
    // A sample stands for the sampling interval, not the time since the previous one: on a loaded
    // machine the thread may have waited for a core in between (woken Postgres took it at a socket
    // write, say), and that wait would be put on whatever ran when it got the core back.
    const weight = Math.min(delta, interval);
    us.set(part, (us.get(part) ?? 0) + weight);
    total += weight;
    samples++;
  }
  const shares = [...us.entries()]
    .map(([where, v]) => ({ where, share: total === 0 ? 0 : v / total, ms: v / 1000 }))
    .sort((a, b) => b.ms - a.ms);
  return { shares, totalMs: total / 1000, samples };
}

/** The functions with the most self time (builtins as themselves), for reading a profile by hand. */
export function topFunctions(file: string, limit = 40, window?: { fromUs: number; toUs: number }): { fn: string; ms: number }[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const us = new Map<string, number>();
  const interval = median(profile.timeDeltas);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const { functionName, url, lineNumber } = byId.get(profile.samples[i]!)!.callFrame;
    if (functionName === '(idle)') continue;
    const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    us.set(key, (us.get(key) ?? 0) + Math.min(delta, interval));
  }
  return [...us.entries()]
    .map(([fn, v]) => ({ fn, ms: v / 1000 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit);
}
