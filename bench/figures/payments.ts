import type { Client } from '@temporalio/client';
import type { BenchOptions } from '../options';
import { figureFrom, type Figure } from '../support/figures';
import { historyEventsPerPayment } from '../support/history-events';
import type { Receiver } from '../support/receiver';
import { pool, type PaymentSide } from '../support/sides';
import { groupCpuMs, groupPeakProcessRss, sampleMax } from '../support/processes';
import { postgresDelta, stackDelta, type stackCpuMeter } from '../support/stack-cpu';
import { interleaved, quantile, type Metrics } from '../support/stats';

/** A side of the payment figures, with its worker's task queue and process. */
type MeasuredSide = PaymentSide & {
  taskQueue: string;
  workerPid: () => number;
  /** Ours: the API server's process, whose CPU per payment the capacity model (docs/capacity.md) starts from. */
  apiPid?: () => number;
};

// A loaded 2-core machine completes about one payment a second: wait in proportion to the batch.
const completionTimeoutMs = (count: number) => Number(process.env.BENCH_COMPLETION_TIMEOUT_MS ?? 60_000 + 5_000 * count);
const E2E =
  'Each payment: opened, then paid by the customer: the provider hint, the token transfer on anvil (mint + transfer, 1 confirmation), the watcher credit at its 1 s poll, the completion, the signed payment.completed POST at the bench receiver.';
// Ours' payouts, as the figures that wait for payment.settled see them.
const SETTLEMENT =
  "Ours pays out in settlement runs: a completion credits the merchant's balance; a run per network every PAYOUT_INTERVAL_SECONDS, here 1 s (the default is 30 s, which a round waiting for payment.settled would mostly spend waiting), sweeps the completed payments' deposits through the network's sweeper in one transaction and pays each merchant one transfer, then sends payment.settled. Its schedules run during ours' rounds only (paused between them, so their runs, empty or not, never land in the baseline's rounds).";

// Only the stack under test (bench/support/stack-cpu.ts): other work on the machine lands in none of these.
const CPU_PARTS = [
  {
    key: 'stackCpuMs',
    id: 'cpu_ms_per_payment_stack',
    title: 'stack CPU per payment',
    includes:
      "Every process of the stack under test and nothing else on the machine: the Temporal server listening on the run's port (with its children), the Postgres backends of the run's databases, the run's anvil, our API, sandbox and workers (process trees; both sides' processes run during either side's round, idle when not theirs), and the bench process (load and receiver):",
  },
  {
    key: 'temporalCpuMs',
    id: 'cpu_ms_per_payment_temporal',
    title: 'Temporal server CPU per payment',
    includes:
      'The Temporal server of this run (the process listening on its port, and its children; not other Temporal servers on the machine):',
  },
  {
    key: 'postgresCpuMs',
    id: 'cpu_ms_per_payment_postgres',
    title: 'Postgres CPU per payment',
    includes:
      "The Postgres backends serving the run's own databases (pg_stat_activity's pids for them, read before and after the round; the production Temporal server's databases too, when it runs; a backend that closed within the round is missing, so a floor):",
  },
  {
    key: 'workerCpuMs',
    id: 'cpu_ms_per_payment_worker',
    title: 'worker CPU per payment',
    includes: "The worker's process group (its workflow and activity threads, watchers; the minimal worker's for the baseline):",
  },
] as const;

/** History events per payment: one count over the rounds, not a round's measurement. */
const historyFigure = (ours: number, baseline: number, meta: Pick<Figure, 'id' | 'title' | 'includes' | 'baselineIs'>): Figure => ({
  ...meta,
  unit: 'events',
  better: 'lower',
  ours,
  baseline,
  ratio: ours / baseline,
  rounds: { ours: [ours], baseline: [baseline] },
});

/** Opens and pays `count` payments, `concurrency` at a time; completions per second until the last payment.completed arrived. */
export async function throughput(
  side: PaymentSide,
  receiver: Receiver,
  count: number,
  concurrency: number,
  ids: string[],
  /** A side that pays out: the round also waits for every payment.settled, so its CPU is the whole payment's. */
  settles = false,
): Promise<number> {
  await side.clock?.resume();
  const start = performance.now();
  const mine: string[] = [];
  await pool(count, concurrency, async () => {
    const id = await side.open();
    mine.push(id);
    await side.pay(id);
  });
  await receiver.completions(mine, completionTimeoutMs(count));
  ids.push(...mine);
  const completed = mine.filter((id) => receiver.completedAt(id) !== undefined);
  if (completed.length < count)
    console.error(`[bench] ${side.name}: ${count - completed.length} of ${count} payments failed (not counted)`);
  const last = Math.max(...mine.map((id) => receiver.finishedAt(id)!));
  if (settles) await receiver.settlements(mine, completionTimeoutMs(count));
  await side.clock?.pause();
  return completed.length / ((last - start) / 1000);
}

/** Payments started one at a time at `rate` per second; each one's time from the customer paying to payment.completed at the merchant. */
async function latency(
  side: PaymentSide,
  receiver: Receiver,
  count: number,
  rate: number,
  ids: string[],
  /** Its payments' payment.settled ends the round (not the samples), so no payout is left for the next side's. */
  settles = false,
): Promise<{ p50: number; p99: number; samples: number[] }> {
  await side.clock?.resume();
  const mine: string[] = [];
  const samples: number[] = [];
  const gap = 1000 / rate;
  const runs: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    runs.push(
      (async () => {
        const id = await side.open();
        ids.push(id);
        mine.push(id);
        const t0 = performance.now();
        await side.pay(id);
        await receiver.completions([id], completionTimeoutMs(1));
        const at = receiver.completedAt(id);
        if (at !== undefined) samples.push(at - t0);
      })(),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, gap - (performance.now() - began))));
  }
  await Promise.all(runs);
  if (settles) await receiver.settlements(mine, completionTimeoutMs(count));
  await side.clock?.pause();
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), samples };
}

export async function paymentFigures(input: {
  options: BenchOptions;
  receiver: Receiver;
  temporal: Client;
  ours: MeasuredSide;
  minimal: MeasuredSide;
  /** The minimal implementation paying out as ours does: the payout figures' baseline. */
  minimalPaying: MeasuredSide;
  meter: ReturnType<typeof stackCpuMeter>;
  log: (line: string) => void;
}): Promise<{ figures: Figure[]; oursIds: string[] }> {
  const { options, receiver, ours, minimal, minimalPaying } = input;
  const concurrency = 8;
  const ids = { ours: [] as string[], minimal: [] as string[], minimalPaying: [] as string[] };
  // Sides that pay out (ours, and the like-for-like baseline) end a round at their last
  // payment.settled: the payouts a round started are its CPU, not the next round's.
  const settles = (side: MeasuredSide) => side !== minimal;
  // Warm-up, not counted: a round's concurrency of payments each (worker caches, bundles, the
  // statements each pooled connection prepares on first use, the JIT), so the first measured round
  // is not dearer than the others.
  for (const side of [ours, minimal, minimalPaying]) await throughput(side, receiver, concurrency, concurrency, [], settles(side));
  // Each round also samples its worker's resident memory: the peak under this load.
  // ... and the CPU each part of the machine spent per payment: steadier than payments/s on a loaded
  // machine, and it says where the difference goes. The sides take turns, so the shared Temporal
  // server, Postgres and machine served one side at a time.
  const cpu = async (side: MeasuredSide) => ({
    stack: await input.meter.read(),
    worker: groupCpuMs(side.workerPid()),
    api: side.apiPid ? groupCpuMs(side.apiPid()) : Number.NaN,
  });
  const measured = async (side: MeasuredSide, sideIds: string[]) => {
    const rss = sampleMax(() => groupPeakProcessRss(side.workerPid()));
    const before = await cpu(side);
    const backends = input.meter.watchPostgres();
    const perSecond = await throughput(side, receiver, options.payments, concurrency, sideIds, settles(side));
    const measuredAfter = await cpu(side);
    const after = { ...measuredAfter, stack: { ...measuredAfter.stack, postgres: await backends.stop() } };
    const perPayment = (ms: number) => ms / options.payments;
    return {
      perSecond,
      rssMiB: rss.stop() / 2 ** 20,
      temporalCpuMs: perPayment(after.stack.temporal - before.stack.temporal),
      postgresCpuMs: perPayment(postgresDelta(before.stack.postgres, after.stack.postgres)),
      workerCpuMs: perPayment(after.worker - before.worker),
      stackCpuMs: perPayment(stackDelta(before.stack, after.stack)),
      apiCpuMs: perPayment(after.api - before.api),
    };
  };
  // The payout baseline's rounds take turns with the others too: ours, minimal, minimal paying out.
  const paying: Metrics[] = [];
  const rates = await interleaved(
    options.rounds,
    () => measured(ours, ids.ours),
    async () => {
      const plain = await measured(minimal, ids.minimal);
      paying.push(await measured(minimalPaying, ids.minimalPaying));
      return plain;
    },
  );
  // The latency rounds below run on the same queues: the throughput rounds' workflows are those started before now.
  const throughputEnded = new Date();
  const throughputPayments = ids.ours.length + concurrency;
  const tput = figureFrom(rates, 'perSecond', {
    id: 'payments_per_second',
    title: 'completed payments/s end to end',
    unit: 'payments/s',
    better: 'higher',
    includes: `${options.payments} payments a round, ${concurrency} customers at once, from the first open to the last payment.completed. ${E2E} Ours: POST /api/v1/checkout/sessions, the sandbox's /test-helpers/pay (Pay on our hosted page, the provider payment, its signed callbacks), worker.ts with its 4 network watchers. ${SETTLEMENT}`,
    baselineIs:
      'the minimal Temporal implementation in bench/minimal: a row + workflow.start, the provider hint as a signal, the same transfer, one watcher signalling the credit, one local activity per transition writing the state and its event, one activity posting the signed webhook.',
  });
  input.log(`payments/s: ours ${tput.ours.toFixed(2)} vs minimal ${tput.baseline.toFixed(2)}`);
  // No baseline has an API process: a line of the log, not a figure.
  const apiMs = rates.ours.map((r) => r.apiCpuMs!).sort((a, b) => a - b);
  input.log(
    `ours: API server CPU per payment ${apiMs[Math.floor(apiMs.length / 2)]!.toFixed(1)} ms (rounds ${apiMs.map((v) => v.toFixed(1)).join(', ')})`,
  );
  const rss = figureFrom(rates, 'rssMiB', {
    id: 'worker_rss_mib',
    title: 'worker RSS at load (peak)',
    unit: 'MiB',
    better: 'lower',
    includes: `The worker process's resident memory (VmRSS of the node process, not its tsx launcher), highest of samples every 500 ms during a throughput round. Ours: worker.ts with its workflow cache, activities and 4 network watchers.`,
    baselineIs:
      "the minimal implementation's worker process (bench/minimal/worker.ts: its workflows, activities and one watcher), same round shape.",
  });
  input.log(`worker RSS: ours ${rss.ours.toFixed(0)} MiB vs minimal ${rss.baseline.toFixed(0)} MiB`);
  const cpuFigures = CPU_PARTS.map(({ key, id, title, includes }) =>
    figureFrom(rates, key, {
      id,
      title,
      unit: 'ms',
      better: 'lower',
      includes: `${includes} CPU (user + system) during the throughput rounds, over the payments of the round; ours' round lasts until its last payment.settled, so the settlement runs that paid its payments count in it, and so do its empty runs, one a second per network (4 networks; the minimal's has no payout). ${SETTLEMENT}`,
      baselineIs: tput.baselineIs,
    }),
  );
  input.log(
    `CPU per payment: ${cpuFigures.map((f) => `${f.id.replace(/^cpu_ms_per_payment_/, '')} ${f.ours.toFixed(0)} vs ${f.baseline.toFixed(0)} ms`).join(', ')}`,
  );
  // The same rounds of ours against the minimal implementation that also pays out, each payment on
  // its own: what ours' settlement costs against the fewest steps that get the money to the merchant.
  const likeForLike = { ours: rates.ours, baseline: paying };
  const payingIs =
    "the minimal implementation of the figures above, paying each payment out on its own (bench/minimal/activities.ts, minimalPayouts): after payment.completed one activity tops up the deposit address's gas from a treasury, sends the merchant's share and the commission from it (three transactions, each signed locally, sent, its receipt awaited), then writes the payouts, the status and payment.settled in one transaction and posts it signed; none of ours' crash safety (nothing is stored before a transfer is sent). Its rounds take turns with ours and the minimal's, and end at the last payment.settled like ours'.";
  const payoutFigures = [
    figureFrom(likeForLike, 'perSecond', {
      id: 'payments_per_second_vs_paying_minimal',
      title: 'completed payments/s, vs minimal with payouts',
      unit: 'payments/s',
      better: 'higher',
      includes: `The same rounds as completed payments/s (to the last payment.completed; both sides pay out meanwhile). ${SETTLEMENT}`,
      baselineIs: payingIs,
    }),
    ...(['workerCpuMs', 'temporalCpuMs', 'postgresCpuMs', 'stackCpuMs'] as const).map((key) => {
      const part = CPU_PARTS.find((p) => p.key === key)!;
      return figureFrom(likeForLike, key, {
        id: `${part.id}_vs_paying_minimal`,
        title: `${part.title}, vs minimal with payouts`,
        unit: 'ms',
        better: 'lower' as const,
        includes: `${part.includes} CPU (user + system) over the same rounds as ${part.title} (to the last payment.settled), over the payments of the round.`,
        baselineIs: payingIs,
      });
    }),
  ];
  input.log(
    `against the minimal paying out: ${payoutFigures.map((f) => `${f.id} ${f.ours.toFixed(1)} vs ${f.baseline.toFixed(1)}`).join(', ')}`,
  );

  // 10 % load: a tenth of the lower throughput, offered to both.
  const rate = Math.max(0.2, Math.min(tput.ours, tput.baseline) / 10);
  const samples = { ours: [] as number[], baseline: [] as number[] };
  const lat = await interleaved(
    options.latencyRounds,
    async () => {
      const { samples: taken, ...q } = await latency(ours, receiver, options.latencyPayments, rate, ids.ours, settles(ours));
      samples.ours.push(...taken);
      return q;
    },
    async () => {
      const { samples: taken, ...q } = await latency(minimal, receiver, options.latencyPayments, rate, ids.minimal);
      samples.baseline.push(...taken);
      return q;
    },
  );
  const latencyMeta = {
    unit: 'ms',
    better: 'lower' as const,
    includes: `${options.latencyPayments} payments a round at ${rate.toFixed(2)}/s (10 % of the lower throughput), from the moment the customer pays (ours: /test-helpers/pay, which presses Pay, transfers and sends the provider callbacks) to payment.completed at the merchant; the quantile of every round's payments together (${samples.ours.length} of ours, ${samples.baseline.length} of the baseline's), the rounds' own quantiles as the spread. ${E2E} ${SETTLEMENT}`,
    baselineIs: tput.baselineIs,
  };
  // A p99 wants samples: the quantile of all rounds' payments, not a median of each round's slowest.
  const pooled = (key: 'p50' | 'p99', q: number, meta: { id: string; title: string }): Figure => {
    const figure = figureFrom(lat, key, { ...meta, ...latencyMeta });
    const oursQ = quantile(samples.ours, q);
    const baseQ = quantile(samples.baseline, q);
    return { ...figure, ours: oursQ, baseline: baseQ, ratio: baseQ === 0 ? Number.NaN : oursQ / baseQ };
  };
  const p50 = pooled('p50', 0.5, { id: 'pay_to_webhook_p50', title: 'pay -> signed webhook p50 at 10% load' });
  const p99 = pooled('p99', 0.99, { id: 'pay_to_webhook_p99', title: 'pay -> signed webhook p99 at 10% load' });
  input.log(
    `latency p50 ${p50.ours.toFixed(0)} vs ${p50.baseline.toFixed(0)} ms, p99 ${p99.ours.toFixed(0)} vs ${p99.baseline.toFixed(0)} ms`,
  );

  const oursEvents = await historyEventsPerPayment(input.temporal, ours.taskQueue, ids.ours.length + concurrency, input.log);
  const minimalEvents = await historyEventsPerPayment(input.temporal, minimal.taskQueue, ids.minimal.length + concurrency, input.log);
  const events = historyFigure(oursEvents, minimalEvents, {
    id: 'history_events_per_payment',
    title: 'Temporal history events per payment',
    includes: `Every workflow on the side's task queue after the payment figures (the payment's own workflow; webhook delivery workflows where a payment has any; ours' settlement runs that swept or paid something, whole, however many payments each settled), history length when counted (each counted once closed; a run still open after two minutes is counted as it is, and the bench log says how many), over the ${ids.ours.length + concurrency} payments. Ours' empty settlement runs (one a second per network at PAYOUT_INTERVAL_SECONDS=1 while its rounds go on, whatever the load) are a cost per second, not per payment: the bench log counts them apart.`,
    baselineIs: tput.baselineIs,
  });
  input.log(`history events per payment: ours ${oursEvents.toFixed(1)} vs minimal ${minimalEvents.toFixed(1)}`);
  // Like for like: ours' throughput rounds against the minimal paying out, which ran those rounds only.
  const oursThroughputEvents = await historyEventsPerPayment(input.temporal, ours.taskQueue, throughputPayments, input.log, {
    startedBefore: throughputEnded,
    label: 'throughput rounds',
  });
  const payingEvents = await historyEventsPerPayment(
    input.temporal,
    minimalPaying.taskQueue,
    ids.minimalPaying.length + concurrency,
    input.log,
  );
  const payingHistory = historyFigure(oursThroughputEvents, payingEvents, {
    id: 'history_events_per_payment_vs_paying_minimal',
    title: 'Temporal history events per payment, vs minimal with payouts',
    includes: `As the history events per payment above, over ours' warm-up and throughput rounds only (${throughputPayments} payments; the workflows started before the latency rounds began, its settlement runs included: a round's payments share them as a loaded service's do, where at 10 % load and a run a second each run carries one or two payments).`,
    baselineIs: payingIs,
  });
  input.log(
    `history events per payment, throughput rounds: ours ${oursThroughputEvents.toFixed(1)} vs minimal with payouts ${payingEvents.toFixed(1)}`,
  );
  return { figures: [tput, rss, ...cpuFigures, p50, p99, events, ...payoutFigures, payingHistory], oursIds: ids.ours };
}
