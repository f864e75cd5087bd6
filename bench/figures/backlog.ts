import type { BenchOptions } from '../options';
import os from 'node:os';
import { figureFrom, type Figure } from '../support/figures';
import { machineBusyMs } from '../support/processes';
import { stackDelta, type stackCpuMeter } from '../support/stack-cpu';
import type { Receiver } from '../support/receiver';
import { pool, type PaymentSide } from '../support/sides';
import { interleaved } from '../support/stats';

/** A side whose worker the figure can take away and bring back. */
export interface BacklogSide extends PaymentSide {
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** It pays out (ours): the drain's CPU lasts until its last payment.settled, so its payouts are its own, not the next drain's. */
  settles?: boolean;
}

// Draining is where a backlog's size shows: give each payment its share of a slow machine.
const drainTimeoutMs = (count: number) => Number(process.env.BENCH_COMPLETION_TIMEOUT_MS ?? 120_000 + 2_000 * count);

/**
 * Issue 14's backlog: the worker is gone while `count` customers open and pay (the provider's
 * callbacks and the token transfers land, the signals wait in Temporal), then it comes back.
 * Payments completed per second from the worker's start to the last payment.completed.
 */
async function drain(
  side: BacklogSide,
  receiver: Receiver,
  count: number,
  ids: string[],
  meter: ReturnType<typeof stackCpuMeter>,
): Promise<{ perSecond: number; firstSeconds: number; stackCpuMs: number; busyShare: number }> {
  await side.stopWorker();
  const mine: string[] = [];
  await pool(count, 8, async () => {
    const id = await side.open();
    mine.push(id);
    await side.pay(id);
  });
  const start = performance.now();
  const busyBefore = machineBusyMs();
  const stackBefore = await meter.read();
  await side.startWorker();
  await receiver.completions(mine, drainTimeoutMs(count));
  if (side.settles) await receiver.settlements(mine, drainTimeoutMs(count));
  const busy = machineBusyMs() - busyBefore;
  const stackCpu = stackDelta(stackBefore, await meter.read());
  const elapsed = performance.now() - start;
  ids.push(...mine);
  const completed = mine.filter((id) => receiver.completedAt(id) !== undefined);
  if (completed.length < count)
    console.error(`[bench] ${side.name}: ${count - completed.length} of ${count} backlog payments not completed (not counted)`);
  const last = Math.max(...mine.map((id) => receiver.finishedAt(id)!));
  const first = Math.min(...completed.map((id) => receiver.completedAt(id)!));
  return {
    perSecond: completed.length / ((last - start) / 1000),
    firstSeconds: (first - start) / 1000,
    stackCpuMs: stackCpu / completed.length,
    // How much of every core the drain kept busy: near 1, the machine, not the code's waiting, sets the rate.
    busyShare: busy / (elapsed * os.cpus().length),
  };
}

export async function backlogFigures(input: {
  options: BenchOptions;
  receiver: Receiver;
  ours: BacklogSide;
  minimal: BacklogSide;
  temporalServer: string;
  meter: ReturnType<typeof stackCpuMeter>;
  log: (line: string) => void;
}): Promise<Figure[]> {
  const { options, receiver, ours, minimal } = input;
  const ids = { ours: [] as string[], minimal: [] as string[] };
  const rounds = await interleaved(
    options.backlogRounds,
    () => drain(ours, receiver, options.backlog, ids.ours, input.meter),
    () => drain(minimal, receiver, options.backlog, ids.minimal, input.meter),
  );
  const figure = figureFrom(rounds, 'perSecond', {
    id: 'backlog_drain_per_second',
    title: `${options.backlog}-payment backlog drained/s`,
    unit: 'payments/s',
    better: 'higher',
    includes: `The worker stopped; ${options.backlog} payments opened and paid (the provider's callbacks and the token transfers land while no worker runs); then the worker starts: payments completed per second from its start to the last payment.completed at the merchant. Ours: worker.ts (its watchers catch up from their cursors; payouts of the completed payments run alongside). Temporal: the ${input.temporalServer} server.`,
    baselineIs: 'the minimal Temporal implementation in bench/minimal, its worker stopped and started the same way, the same backlog.',
  });
  // Issue 14: deliveries must not wait behind the backlog (they once went out only after 63 s).
  const first = figureFrom(rounds, 'firstSeconds', {
    id: 'backlog_first_webhook_seconds',
    title: `${options.backlog}-payment backlog: first payment.completed after`,
    unit: 's',
    better: 'lower',
    includes: `The same drain: seconds from the worker's start to the first payment.completed at the merchant (the worker's start-up and connection included; ours takes its workflow bundle from the cache when the sources are unchanged, the minimal worker bundles at every start as the SDK does by default).`,
    baselineIs: figure.baselineIs,
  });
  const cpu = figureFrom(rounds, 'stackCpuMs', {
    id: 'backlog_cpu_ms_per_payment_stack',
    title: `${options.backlog}-payment backlog: stack CPU per payment`,
    unit: 'ms',
    better: 'lower',
    includes: `The same drain: CPU (user + system) of the stack under test only (bench/support/stack-cpu.ts: the run's Temporal server, the backends of its databases, its anvil, our processes and the bench's) from the worker's start to the last payment.completed (ours: to its last payment.settled, its payouts included), over the payments completed; the worker's start-up included.`,
    baselineIs: figure.baselineIs,
  });
  const share = figureFrom(rounds, 'busyShare', {
    id: 'backlog_machine_busy_share',
    title: `${options.backlog}-payment backlog: share of the machine's cores busy`,
    unit: 'share',
    better: 'higher',
    includes: `The same drain (ours to its last payment.settled): the machine's CPU time over the drain's wall time × ${os.cpus().length} cores. Near 1, the drain ran as fast as the machine could go; then payments/s is machine cores ÷ CPU per payment, and only less CPU per payment drains faster.`,
    baselineIs: figure.baselineIs,
  });
  input.log(
    `backlog drain: ours ${figure.ours.toFixed(2)}/s vs minimal ${figure.baseline.toFixed(2)}/s; first webhook after ${first.ours.toFixed(1)} s vs ${first.baseline.toFixed(1)} s; ` +
      `stack CPU ${cpu.ours.toFixed(0)} vs ${cpu.baseline.toFixed(0)} ms per payment, cores busy ${(share.ours * 100).toFixed(0)} % vs ${(share.baseline * 100).toFixed(0)} %`,
  );
  return [figure, first, cpu, share];
}
