import { readFileSync } from 'node:fs';

/** The parts of a V8 `.cpuprofile` (node --cpu-prof) read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a sample's time is put: the first matching rule, by the script its function came from. */
const PARTS: [string, RegExp][] = [
  ['Temporal client (workflow.start: request building, protobuf, gRPC)', /node_modules\/(@temporalio|@grpc|protobufjs|long|@protobufjs|proto3-json-serializer|ms)\//],
  ['drizzle-orm', /node_modules\/drizzle-orm\//],
  ['postgres.js (protocol, parsing, socket writes)', /node_modules\/postgres\//],
  ['zod (request validation, response check)', /node_modules\/zod\//],
  ['Fastify (routing, hooks, reply)', /node_modules\/(fastify|@fastify|find-my-way|avvio|fast-json-stringify|fast-querystring|fastify-plugin|fastify-type-provider-zod|light-my-request|secure-json-parse|fast-content-type-parse|process-warning|toad-cache|rfdc|fast-uri|abstract-logging)\//],
  ['pino (logging)', /node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact|thread-stream|@pinojs)\//],
  ['prom-client (request latency histogram)', /node_modules\/(prom-client|tdigest|bintrees)\//],
  ['our code (auth, validation, the use case, views)', /^file:\/\/(?!.*node_modules).*(\/src\/|\/server\.ts$)/],
  ['Node core (HTTP, sockets, streams, timers, microtasks)', /^node:|^internal\//],
  ['other packages', /node_modules\//],
];
const GC = 'garbage collection';
const UNATTRIBUTED = 'V8, unattributed (program)';

export interface CpuShare {
  where: string;
  /** Share of the profiled CPU (idle excluded). */
  share: number;
  /** Milliseconds of profiled CPU. */
  ms: number;
}

/**
 * Self time of a V8 CPU profile by part of the stack (PARTS), idle excluded, over the samples taken
 * within [fromUs, toUs] (V8's monotonic clock, the same as process.hrtime on Linux) when given. A
 * function without a script (a builtin such as JSON.parse, a native call) is put where its nearest
 * caller with a script is: JSON.parse called by postgres.js is postgres.js's.
 */
export function cpuProfileShares(file: string, window?: { fromUs: number; toUs: number }): { shares: CpuShare[]; totalMs: number; samples: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const { functionName, url } = node.callFrame;
    let part: string | null;
    if (functionName === '(idle)') part = null;
    else if (functionName === '(garbage collector)') part = GC;
    else if (functionName === '(program)' || functionName === '(root)') part = UNATTRIBUTED;
    else if (url) part = PARTS.find(([, re]) => re.test(url))?.[0] ?? 'other';
    else {
      const up = parent.get(id);
      part = up === undefined ? UNATTRIBUTED : classify(up);
      if (part === null) part = UNATTRIBUTED;
    }
    partOf.set(id, part);
    return part;
  };
  const us = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  let samples = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const part = classify(profile.samples[i]!);
    if (part === null) continue;
    // A sample stands for the time since the previous one.
    us.set(part, (us.get(part) ?? 0) + delta);
    total += delta;
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
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const { functionName, url, lineNumber } = byId.get(profile.samples[i]!)!.callFrame;
    if (functionName === '(idle)') continue;
    const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    us.set(key, (us.get(key) ?? 0) + delta);
  }
  return [...us.entries()]
    .map(([fn, v]) => ({ fn, ms: v / 1000 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit);
}
