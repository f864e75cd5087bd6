import { writeFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type postgres from 'postgres';
import { newPaymentId } from '../../src/domain/ids';
import { MINIMAL_PAYMENT_WORKFLOW } from '../minimal/messages';
import type { BenchOptions } from '../options';
import { cpuProfileShares } from '../support/cpu-profile';
import { figureFrom, type Figure } from '../support/figures';
import { groupCpuMs } from '../support/processes';
import { pool, type PaymentSide } from '../support/sides';
import { postgresDelta, stackDelta, type stackCpuMeter } from '../support/stack-cpu';
import { interleaved } from '../support/stats';

const CONCURRENCY = 8;

/**
 * Session creation: ours over HTTP (POST /api/v1/checkout/sessions: auth, validation, quote of the
 * rail, workflow start, then the row) against a raw loop in the bench process: the same
 * row inserted with postgres.js, then workflow.start. No worker polls either task queue, so the
 * workflows only start.
 */
export async function creationFigures(input: {
  options: BenchOptions;
  ours: PaymentSide;
  /** The API server's process group: its CPU per created session. */
  serverPid: number;
  sql: postgres.Sql;
  temporal: Client;
  merchantId: string;
  idleQueue: string;
  webhookUrl: string;
  /** The stack under test's CPU by part (the API server among its services, the bench process with it). */
  meter: ReturnType<typeof stackCpuMeter>;
  /**
   * Another API server like the measured one, run with V8's CPU profiler after the measured rounds:
   * `open` creates a session through it, `stop` ends it and answers its profile's file (or null).
   */
  profiled?: () => Promise<{ open: () => Promise<unknown>; stop: () => Promise<string | null> }>;
}): Promise<Figure[]> {
  const { options, sql, temporal } = input;
  const raw = async () => {
    const id = newPaymentId();
    await sql`insert into checkout_sessions (id, merchant_id, status, amount_minor, currency, country_code, destination_asset, network, wallet_address, commission_bps, provider, rail_type, expires_at)
      values (${id}, ${input.merchantId}, 'pending', 2500, 'USD', 'US', 'USDC', 'polygon', '0x52908400098527886E0F7030069857D2E4169EE7', 100, 'sandbox', 'fiat_to_crypto', now() + interval '1 day')`;
    await temporal.workflow.start(MINIMAL_PAYMENT_WORKFLOW, {
      taskQueue: input.idleQueue,
      workflowId: id,
      args: [{ paymentId: id, expectedMicro: '25000000', webhookUrl: input.webhookUrl }],
    });
  };
  // CPU per created session: ours, the API server's process group; the raw loop, the bench process
  // itself (its insert and workflow.start; nothing else runs in it meanwhile).
  const ownCpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const rate = async (create: () => Promise<unknown>, cpuMs: () => number) => {
    const stack0 = await input.meter.read();
    const backends = input.meter.watchPostgres();
    const cpu0 = cpuMs();
    const start = performance.now();
    await pool(options.creations, CONCURRENCY, async () => void (await create()));
    const seconds = (performance.now() - start) / 1000;
    const cpu1 = cpuMs();
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
  const ours = () =>
    rate(
      () => input.ours.open(),
      () => groupCpuMs(input.serverPid),
    );
  const baseline = () => rate(raw, ownCpuMs);
  await ours();
  await baseline();
  const rounds = await interleaved(options.rounds, ours, baseline);
  const cpu = figureFrom(rounds, 'cpuMs', {
    id: 'session_creation_cpu_ms',
    title: 'API CPU per created session',
    unit: 'ms',
    better: 'lower',
    includes: '',
    baselineIs: "the raw loop's CPU in the bench process (its insert and workflow.start), per session.",
  });
  if (input.profiled) cpu.breakdown = await profiledBreakdown(input.profiled, options.creations, cpu.ours);
  const includes = `${options.creations} sessions a round, ${CONCURRENCY} at once: POST /api/v1/checkout/sessions on server.ts (its own process), 201 once the workflow started and then the row was stored; chain-verified (a deposit address each: the next index from a sequence and the network's sweeper forwarder for it, one hash, stored as a row).`;
  // Where a creation's cost to the whole machine goes, on both sides: on two cores both loops are
  // bound by it, so the rate follows the stack's CPU per creation, not the API's alone.
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
        'the Temporal server, Postgres, the API server and the bench process (its HTTP client for ours, the loop itself for the raw loop)',
      ],
    ] as const
  ).map(([key, id, title, what]) =>
    figureFrom(rounds, key, {
      id,
      title,
      unit: 'ms',
      better: 'lower',
      includes: `${includes} CPU (user + system) of ${what} over the round, per session.`,
      baselineIs: 'the raw loop of session creation/s, its round measured the same way.',
    }),
  );
  return [
    { ...cpu, includes: `${includes} CPU (user + system) of the API server's process group over the round, per session.` },
    figureFrom(rounds, 'perSecond', {
      id: 'session_creation_per_second',
      title: 'session creation/s',
      unit: 'sessions/s',
      better: 'higher',
      includes,
      baselineIs: 'a raw loop in the bench process: one postgres.js insert of the same row, then workflow.start, same concurrency.',
    }),
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
