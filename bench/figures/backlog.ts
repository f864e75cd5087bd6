import type { BenchOptions } from '../options';
import os from 'node:os';
import type { Address, PublicClient } from 'viem';
import { chainSpend } from '../support/chain-spend';
import { figureFrom, type Figure } from '../support/figures';
import { groupCpuMs, machineBusyMs } from '../support/processes';
import { COUNT_FLUSH_MS } from '../support/sql-count';
import { postgresDelta, stackDelta, type stackCpuMeter } from '../support/stack-cpu';
import type { Receiver } from '../support/receiver';
import { pool, type PaymentSide } from '../support/sides';
import { interleaved, medianOf, type Metrics, type Rounds } from '../support/stats';

/** A side whose worker the figure can take away and bring back. */
export interface BacklogSide extends PaymentSide {
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** It pays out (ours): the drain's CPU lasts until its last payment.settled, so its payouts are its own, not the next drain's. */
  settles?: boolean;
  /** Who sends its payouts' transactions: what the drain's chain figures count. */
  spend?: { treasury: Address; deposits(ids: readonly string[]): Promise<Address[]> };
  /** The SQL statements its processes have sent so far (bench/support/sql-count.ts). */
  statements?: () => number;
  /** Its worker's process (group), once started. */
  workerPid?: () => number;
}

// The counting processes write their counts every COUNT_FLUSH_MS: wait for two writes before a reading.
const statementsNow = async (side: BacklogSide) => {
  if (!side.statements) return null;
  await new Promise((r) => setTimeout(r, 2 * COUNT_FLUSH_MS));
  return side.statements();
};

// Draining is where a backlog's size shows: give each payment its share of a slow machine.
const drainTimeoutMs = (count: number) => Number(process.env.BENCH_COMPLETION_TIMEOUT_MS ?? 120_000 + 2_000 * count);

/**
 * The backlog: the worker is gone while `count` customers open and pay (the provider's
 * callbacks and the token transfers land, the signals wait in Temporal), then it comes back.
 * Payments completed per second from the worker's start to the last payment.completed.
 */
async function drain(
  side: BacklogSide,
  receiver: Receiver,
  count: number,
  ids: string[],
  meter: ReturnType<typeof stackCpuMeter>,
  chain: PublicClient,
): Promise<Record<string, number>> {
  // Read before the payments exist, so every transaction of theirs is in a later block.
  const chainBefore = side.spend
    ? { block: await chain.getBlockNumber(), nonce: await chain.getTransactionCount({ address: side.spend.treasury, blockTag: 'latest' }) }
    : null;
  const statementsBefore = await statementsNow(side);
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
  const backends = meter.watchPostgres();
  await side.clock?.resume();
  await side.startWorker();
  // From the worker's readiness: its start-up (ours reads its workflow bundle from a cache, the
  // minimal's bundles it again) is not a cost of the payments.
  const workerBefore = side.workerPid ? groupCpuMs(side.workerPid()) : Number.NaN;
  await receiver.completions(mine, drainTimeoutMs(count));
  // The machine's share over the span the rate is measured on (to the last payment.completed), for
  // both sides alike; ours' wait for its last settlement run after it is a schedule, not a cap.
  const busy = machineBusyMs() - busyBefore;
  const completedElapsed = performance.now() - start;
  if (side.settles) await receiver.settlements(mine, drainTimeoutMs(count));
  const busyToSettled = machineBusyMs() - busyBefore;
  const workerCpu = side.workerPid ? groupCpuMs(side.workerPid()) - workerBefore : Number.NaN;
  const stackAfter = await meter.read();
  const postgresCpu = postgresDelta(stackBefore.postgres, await backends.stop());
  const stackCpu = stackDelta(stackBefore, stackAfter);
  const elapsed = performance.now() - start;
  await side.clock?.pause();
  const statementsAfter = await statementsNow(side);
  ids.push(...mine);
  const completed = mine.filter((id) => receiver.completedAt(id) !== undefined);
  if (completed.length < count)
    console.error(`[bench] ${side.name}: ${count - completed.length} of ${count} backlog payments not completed (not counted)`);
  const last = Math.max(...mine.map((id) => receiver.finishedAt(id)!));
  const first = Math.min(...completed.map((id) => receiver.completedAt(id)!));
  const spent =
    side.spend && chainBefore
      ? await chainSpend(chain, {
          afterBlock: chainBefore.block,
          treasury: side.spend.treasury,
          treasuryNonceBefore: chainBefore.nonce,
          deposits: await side.spend.deposits(mine),
        })
      : null;
  if (spent)
    console.error(
      `[bench] ${side.name} backlog on chain: ${spent.transactions} transactions (${spent.fromTreasury} from the treasury), ${spent.gasUsed} gas, ${spent.depositWei} wei left at ${mine.length} deposit addresses, for ${completed.length} payments`,
    );
  const statements = statementsBefore !== null && statementsAfter !== null ? statementsAfter - statementsBefore : null;
  if (statements !== null) console.error(`[bench] ${side.name} backlog: ${statements} SQL statements for ${completed.length} payments`);
  return {
    perSecond: completed.length / ((last - start) / 1000),
    firstSeconds: (first - start) / 1000,
    stackCpuMs: stackCpu / completed.length,
    workerCpuMs: workerCpu / completed.length,
    postgresCpuMs: postgresCpu / completed.length,
    // How much of every core the drain kept busy: near 1, the machine, not the code's waiting, sets the rate.
    busyShare: busy / (completedElapsed * os.cpus().length),
    // Ours: the same to its last payment.settled, the settlement runs' tail included (the log's).
    busyShareToSettled: busyToSettled / (elapsed * os.cpus().length),
    ...(spent
      ? {
          transactionsPerPayment: spent.transactions / completed.length,
          gasPerPayment: Number(spent.gasUsed) / completed.length,
          depositGwei: Number(spent.depositWei) / 1e9,
        }
      : {}),
    ...(statements !== null ? { statementsPerPayment: statements / completed.length } : {}),
  };
}

const PAYING_MINIMAL_IS =
  "the minimal implementation paying out per payment (bench/minimal, minimalPayouts): three transactions per payment (the deposit address's gas from its treasury, anvil's account 8, then the merchant's share and the commission from the deposit address), its worker stopped and started the same way, the same backlog, to its last payment.settled.";

/** What ours' settlement costs on chain and in SQL, against the minimal implementation paying out per payment. */
function payoutFigures(rounds: Rounds, count: number, merchants: number): Figure[] {
  const ours = `Ours, the drain above (worker.ts with PAYOUT_INTERVAL_SECONDS=1, its settlement schedules running from the worker's start to the last payment.settled; deposit addresses are the sweeper's forwarders), the payments spread over ${merchants} merchants round-robin: each settlement run sweeps the deposits of the payments completed since the last one in one transaction from the treasury and pays each merchant one transfer, while the drain goes on.`;
  const counted = `From the block before the backlog's first payment to the last payment.settled, every block on anvil: the transactions sent by the side's treasury or by one of the round's ${count} deposit addresses (the customers' transfers and the test tokens' mints are sent by others), over the payments completed.`;
  return [
    figureFrom(rounds, 'perSecond', {
      id: 'backlog_drain_per_second_vs_paying_minimal',
      title: `${count}-payment backlog drained/s, vs minimal with payouts`,
      unit: 'payments/s',
      better: 'higher',
      includes: `${ours} Payments completed per second from the worker's start to the last payment.completed, both sides paying out meanwhile. Target: at least 1.0x the minimal's.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
    figureFrom(rounds, 'workerCpuMs', {
      id: 'backlog_cpu_ms_per_payment_worker_vs_paying_minimal',
      title: `${count}-payment backlog: worker CPU per payment, vs minimal with payouts`,
      unit: 'ms',
      better: 'lower',
      includes: `${ours} CPU (user + system) of the worker's process group (workflows, activities, chain watchers, settlement runs) from its readiness to the last payment.settled, over the payments completed. Target: at most 1.0x the minimal's.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
    figureFrom(rounds, 'postgresCpuMs', {
      id: 'backlog_cpu_ms_per_payment_postgres_vs_paying_minimal',
      title: `${count}-payment backlog: Postgres CPU per payment, vs minimal with payouts`,
      unit: 'ms',
      better: 'lower',
      includes: `${ours} CPU of the Postgres backends serving the run's databases (bench/support/stack-cpu.ts, sampled through the drain so a backend that closes is still counted; a new one counted whole) from the worker's start to the last payment.settled, over the payments completed. Target: at most 2.0x the minimal's.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
    figureFrom(rounds, 'transactionsPerPayment', {
      id: 'backlog_chain_transactions_per_payment_vs_paying_minimal',
      title: `${count}-payment backlog: chain transactions per payment, vs minimal with payouts`,
      unit: 'transactions',
      better: 'lower',
      includes: `${ours} ${counted} Target: at most 0.25.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
    figureFrom(rounds, 'gasPerPayment', {
      id: 'backlog_gas_per_payment_vs_paying_minimal',
      title: `${count}-payment backlog: gas per payment, vs minimal with payouts`,
      unit: 'gas',
      better: 'lower',
      includes: `${ours} The sum of gasUsed from the receipts of the transactions the chain transactions figure counts, over the payments completed. Target: at most 0.75x the minimal's.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
    figureFrom(rounds, 'depositGwei', {
      id: 'backlog_deposit_native_left_gwei_vs_paying_minimal',
      title: `${count}-payment backlog: native coin left at deposit addresses, vs minimal with payouts`,
      unit: 'gwei',
      better: 'lower',
      includes: `${ours} The sum of getBalance over the round's ${count} deposit addresses once its last payment.settled arrived (gas topped up and not spent stays there for good). Target: 0.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
    figureFrom(rounds, 'statementsPerPayment', {
      id: 'backlog_sql_statements_per_payment_vs_paying_minimal',
      title: `${count}-payment backlog: SQL statements per payment, vs minimal with payouts`,
      unit: 'statements',
      better: 'lower',
      includes: `${ours} Every statement the side's own processes sent to Postgres from before the backlog's first payment to its last payment.settled (ours: server.ts and worker.ts, the settlement runs of every network included; the minimal's: its worker and the bench's insert of each payment's row), counted at the wire in those processes (bench/support/sql-count.ts: each Execute and simple Query message a postgres.js connection writes, BEGIN and COMMIT included, and a new connection's type lookup), over the payments completed. Not the Temporal server's own SQL.`,
      baselineIs: PAYING_MINIMAL_IS,
    }),
  ];
}

export async function backlogFigures(input: {
  options: BenchOptions;
  receiver: Receiver;
  ours: BacklogSide;
  minimal: BacklogSide;
  /** The minimal implementation paying out per payment: the baseline of what ours' settlement costs on chain and in SQL. */
  minimalPaying: BacklogSide;
  /** How many merchants ours' payments are spread over (round-robin). */
  merchants: number;
  chain: PublicClient;
  temporalServer: string;
  meter: ReturnType<typeof stackCpuMeter>;
  log: (line: string) => void;
}): Promise<Figure[]> {
  const { options, receiver, ours, minimal, minimalPaying } = input;
  const ids = { ours: [] as string[], minimal: [] as string[], minimalPaying: [] as string[] };
  const drained = (side: BacklogSide, sideIds: string[]) => drain(side, receiver, options.backlog, sideIds, input.meter, input.chain);
  // Ours, the minimal, the minimal paying out: each drain alone on the machine.
  const paying: Metrics[] = [];
  const rounds = await interleaved(
    options.backlogRounds,
    () => drained(ours, ids.ours),
    async () => {
      const plain = await drained(minimal, ids.minimal);
      paying.push(await drained(minimalPaying, ids.minimalPaying));
      return plain;
    },
  );
  const figure = figureFrom(rounds, 'perSecond', {
    id: 'backlog_drain_per_second',
    title: `${options.backlog}-payment backlog drained/s`,
    unit: 'payments/s',
    better: 'higher',
    includes: `The worker stopped; ${options.backlog} payments opened and paid (the provider's callbacks and the token transfers land while no worker runs); then the worker starts: payments completed per second from its start to the last payment.completed at the merchant. Ours: worker.ts (its watchers catch up from their cursors; settlement runs every second, PAYOUT_INTERVAL_SECONDS=1, pay the completed payments out alongside). Temporal: the ${input.temporalServer} server.`,
    baselineIs: 'the minimal Temporal implementation in bench/minimal, its worker stopped and started the same way, the same backlog.',
  });
  // Deliveries must not wait behind the backlog (they once went out only after 63 s).
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
    includes: `The same drain: CPU (user + system) of the stack under test only (bench/support/stack-cpu.ts: the run's Temporal server, the backends of its databases, its anvil, our processes and the bench's) from the worker's start to the last payment.completed (ours: to its last payment.settled, its settlement runs included), over the payments completed; the worker's start-up included.`,
    baselineIs: figure.baselineIs,
  });
  const share = figureFrom(rounds, 'busyShare', {
    id: 'backlog_machine_busy_share',
    title: `${options.backlog}-payment backlog: share of the machine's cores busy`,
    unit: 'share',
    better: 'higher',
    includes: `The same drain, over the span its rate is measured on (the worker's start to the last payment.completed, for both sides): the machine's CPU time over that wall time × ${os.cpus().length} cores. Near 1, the drain ran as fast as the machine could go; then payments/s is machine cores ÷ CPU per payment, and only less CPU per payment drains faster. Ours' share to its last payment.settled (its last settlement run's tail included) is in the log.`,
    baselineIs: figure.baselineIs,
  });
  input.log(
    `backlog drain: ours ${figure.ours.toFixed(2)}/s vs minimal ${figure.baseline.toFixed(2)}/s; first webhook after ${first.ours.toFixed(1)} s vs ${first.baseline.toFixed(1)} s; ` +
      `stack CPU ${cpu.ours.toFixed(0)} vs ${cpu.baseline.toFixed(0)} ms per payment, cores busy ${(share.ours * 100).toFixed(0)} % vs ${(share.baseline * 100).toFixed(0)} % ` +
      `(ours to its last payment.settled: ${(medianOf(rounds.ours, 'busyShareToSettled') * 100).toFixed(0)} %)`,
  );
  const paid = payoutFigures({ ours: rounds.ours, baseline: paying }, options.backlog, input.merchants);
  const plainStatements = medianOf(rounds.baseline, 'statementsPerPayment');
  for (const f of paid)
    input.log(
      `${f.title}: ours ${f.ours.toFixed(2)}, minimal with payouts ${f.baseline.toFixed(2)}` +
        (f.unit === 'statements' ? ` (the minimal without payouts ${plainStatements.toFixed(1)})` : ''),
    );
  return [figure, first, cpu, share, ...paid];
}
