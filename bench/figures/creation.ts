import { writeFileSync } from 'node:fs';
import type { BenchOptions } from '../options';
import { cpuProfileShares } from '../support/cpu-profile';
import { figureFrom, type Figure } from '../support/figures';
import { treeCpuMs } from '../support/processes';
import { pool, type PaymentSide } from '../support/sides';
import { postgresDelta, stackDelta, type stackCpuMeter } from '../support/stack-cpu';
import { interleaved } from '../support/stats';

const CONCURRENCY = 8;

/**
 * Session creation over HTTP, ours against a bare peer doing what a creation must
 * (bench/baseline/bare-create.ts), each its own process, driven alike from the bench process. No
 * worker polls either task queue, so the workflows only start.
 */
export async function creationFigures(input: {
  options: BenchOptions;
  /** POST /api/v1/checkout/sessions on our server.ts. */
  ours: PaymentSide;
  /** The same request on the bare peer. */
  bare: PaymentSide;
  /** Each server's process (tsx's launcher): its tree's CPU per created session. */
  serverPid: number;
  barePid: number;
  /** The stack under test's CPU by part (both servers among its services, the bench process with them). */
  meter: ReturnType<typeof stackCpuMeter>;
  /**
   * Another API server like the measured one, run with V8's CPU profiler after the measured rounds:
   * `open` creates a session through it, `stop` ends it and answers its profile's file (or null).
   */
  profiled?: () => Promise<{ open: () => Promise<unknown>; stop: () => Promise<string | null> }>;
}): Promise<Figure[]> {
  const { options } = input;
  const rate = async (side: PaymentSide, pid: number) => {
    const stack0 = await input.meter.read();
    const backends = input.meter.watchPostgres();
    const cpu0 = treeCpuMs([pid]);
    const start = performance.now();
    await pool(options.creations, CONCURRENCY, async () => void (await side.open()));
    const seconds = (performance.now() - start) / 1000;
    const cpu1 = treeCpuMs([pid]);
    const read = await input.meter.read();
    const stack1 = { ...read, postgres: await backends.stop() };
    const per = (ms: number) => ms / options.creations;
    return {
      perSecond: options.creations / seconds,
      cpuMs: per(cpu1 - cpu0),
      temporalCpuMs: per(stack1.temporal - stack0.temporal),
      postgresCpuMs: per(postgresDelta(stack0.postgres, stack1.postgres)),
      stackCpuMs: per(stackDelta(stack0, stack1)),
    };
  };
  const ours = () => rate(input.ours, input.serverPid);
  const bare = () => rate(input.bare, input.barePid);
  // Warm both (JIT, pools, prepared statements, the Temporal connection) before anything counts.
  await ours();
  await bare();
  const rounds = await interleaved(options.rounds, ours, bare);
  const includes = `${options.creations} sessions a round, ${CONCURRENCY} at once from the bench process: POST /api/v1/checkout/sessions with the merchant's key and { amount: 25, currency: USD, countryCode: US }, 201 once the workflow started and then the row was stored; chain-verified (a deposit address each: the next index from a sequence and the network's sweeper forwarder for it, one hash, stored as a row). Ours: server.ts (its own process, its pool of 10, the run's LOG_LEVEL, API_KEY_CACHE_SECONDS 5).`;
  const baselineIs =
    "a bare Fastify + postgres.js + Temporal client process (bench/baseline/bare-create.ts) doing what a creation must: the key joined to its merchant by its hash on every request, the body checked with the API's own zod schema and amount rules, the same workflow started with the same input, id policies and search attributes, then the row inserted with its wallet's address and its deposit address (nextval, then one statement for both rows); no hooks, logging, idempotency, request log or response schema. Rounds interleaved with ours'.";
  const cpu = figureFrom(rounds, 'cpuMs', {
    id: 'session_creation_cpu_ms',
    title: 'API CPU per created session',
    unit: 'ms',
    better: 'lower',
    includes: `${includes} CPU (user + system) of the server's process tree (tsx's launcher and the node process it starts) over the round, per session.`,
    baselineIs,
  });
  if (input.profiled) cpu.breakdown = await profiledBreakdown(input.profiled, options.creations, cpu.ours);
  // Where a creation's cost to the whole machine goes, on both sides: on two cores both are bound
  // by it, so the rate follows the stack's CPU per creation, not the API's alone.
  const parts = (
    [
      [
        'temporalCpuMs',
        'session_creation_temporal_cpu_ms',
        'Temporal server CPU per created session',
        "the run's Temporal server (the process on its port and its descendants)",
      ],
      [
        'postgresCpuMs',
        'session_creation_postgres_cpu_ms',
        'Postgres CPU per created session',
        "the backends serving the run's databases (bench/support/stack-cpu.ts)",
      ],
      [
        'stackCpuMs',
        'session_creation_stack_cpu_ms',
        'stack CPU per created session',
        'the Temporal server, Postgres, both servers (one idle while the other is measured) and the bench process (its HTTP client)',
      ],
    ] as const
  ).map(([key, id, title, what]) =>
    figureFrom(rounds, key, {
      id,
      title,
      unit: 'ms',
      better: 'lower',
      includes: `${includes} CPU (user + system) of ${what} over the round, per session.`,
      baselineIs,
    }),
  );
  return [
    figureFrom(rounds, 'perSecond', {
      id: 'session_creation_per_second',
      title: 'session creation/s',
      unit: 'sessions/s',
      better: 'higher',
      includes,
      baselineIs,
    }),
    cpu,
    ...parts,
  ];
}

/**
 * Where the API's CPU per created session goes: a server like the measured one, under V8's CPU
 * profiler (which slows it: the profile gives shares, the measured median gives milliseconds), one
 * warm-up round, then the samples of one round of `creations`, each put on the nearest package (or
 * our code) on its stack (support/cpu-profile.ts), the samples taken within that round only.
 */
async function profiledBreakdown(
  start: NonNullable<Parameters<typeof creationFigures>[0]['profiled']>,
  creations: number,
  measuredMs: number,
): Promise<Figure['breakdown']> {
  const server = await start();
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const window = { fromUs: 0, toUs: 0 };
  let file: string | null = null;
  try {
    await pool(creations, CONCURRENCY, async () => void (await server.open()));
    window.fromUs = nowUs();
    await pool(creations, CONCURRENCY, async () => void (await server.open()));
    window.toUs = nowUs();
  } finally {
    file = await server.stop();
  }
  if (!file) return undefined;
  if (process.env.BENCH_KEEP_PROFILE) writeFileSync(`${process.env.BENCH_KEEP_PROFILE}.window.json`, JSON.stringify(window));
  const { shares, totalMs } = cpuProfileShares(file, window);
  return {
    method: `V8 CPU profile of another server.ts under the same load after the measured rounds: its samples over one round of ${creations}, each put on the nearest package or our code on its stack (${(totalMs / creations).toFixed(2)} ms per session under the profiler), each part's share of the measured median`,
    parts: shares.map((s) => ({ where: s.where, share: s.share, value: s.share * measuredMs })),
  };
}
