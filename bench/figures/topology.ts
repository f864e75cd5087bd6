import { Client, Connection } from '@temporalio/client';
import type { BenchOptions } from '../options';
import { figureFrom, type Figure } from '../support/figures';
import type { Receiver } from '../support/receiver';
import { createMerchant, startOurServer, startOurWorker, startSandbox, type Service } from '../support/services';
import { settlementClock, type SettlementClock } from '../support/settlement-clock';
import { oursSide, type PaymentSide } from '../support/sides';
import { throughput } from './payments';
import type { Child } from '../support/processes';
import { freePort } from '../support/processes';
import type { Stack } from '../support/stack';
import { interleaved } from '../support/stats';

// Past one process of each kind. The production Temporal server on Postgres, two API
// processes and two workers on one task queue, against one API process and one worker on another, in
// the same run and on the same server, database and chain. Both sets run the whole time (the idle
// one costs little: its settlement schedules are paused), so a round changes nothing but which set
// the customers use.

interface Topology {
  apis: Service[];
  workers: Child[];
}

/** Customers spread over the set's API processes in turn, as a round-robin balancer would send them. */
function spreadSide(sides: readonly PaymentSide[], clock: SettlementClock): PaymentSide {
  let next = 0;
  const owner = new Map<string, PaymentSide>();
  return {
    name: 'ours',
    clock,
    async open() {
      const side = sides[next++ % sides.length]!;
      const id = await side.open();
      owner.set(id, side);
      return id;
    },
    pay: (id) => owner.get(id)!.pay(id),
  };
}

async function startTopology(input: {
  stack: Stack;
  size: number;
  taskQueue: string;
  sandboxUrl: string;
  logLevel: string;
}): Promise<Topology> {
  const apis: Service[] = [];
  const workers: Child[] = [];
  for (let i = 0; i < input.size; i++) {
    apis.push(await startOurServer(input.stack, { taskQueue: input.taskQueue, sandboxUrl: input.sandboxUrl, logLevel: input.logLevel }));
  }
  for (let i = 0; i < input.size; i++) {
    workers.push(
      await startOurWorker(input.stack, { taskQueue: input.taskQueue, publicBaseUrl: apis[i]!.baseUrl, sandboxUrl: input.sandboxUrl }),
    );
  }
  return { apis, workers };
}

export async function topologyFigures(input: {
  options: BenchOptions;
  stack: Stack;
  receiver: Receiver;
  log: (line: string) => void;
}): Promise<Figure[]> {
  const { options, receiver } = input;
  // Six processes of ours (3 API, 3 workers, each worker's four chain watchers holding a lease
  // connection more) beside the Temporal server's at most 4 × (8 + 2): 6 × 5 + 12 + 40 stays under
  // Postgres's 100 connections. The smoke run shares them with a test run: smaller still.
  const stack = { ...input.stack, env: { ...input.stack.env, DATABASE_POOL_MAX: options.quick ? '3' : '5' } };
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const children: Child[] = [];
  const temporal = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }), namespace: 'default' });
  try {
    const one = await startTopology({ stack, size: 1, taskQueue: 'bench-topology-1', sandboxUrl, logLevel: options.logLevel });
    children.push(...one.apis, ...one.workers);
    // The sandbox's callbacks reach any API process: a provider fact signals the payment's run by its id, whichever queue it is on.
    const sandbox = await startSandbox(stack, one.apis[0]!.baseUrl, sandboxPort);
    children.push(sandbox);
    const { apiKey } = await createMerchant(one.apis[0]!.baseUrl, receiver.url);
    const two = await startTopology({ stack, size: 2, taskQueue: 'bench-topology-2', sandboxUrl, logLevel: options.logLevel });
    children.push(...two.apis, ...two.workers);
    const sideOf = (t: Topology, taskQueue: string) => {
      const clock = settlementClock(temporal, taskQueue);
      return {
        clock,
        side: spreadSide(
          t.apis.map((api) => oursSide({ apiUrl: api.baseUrl, sandboxUrl, apiKey })),
          clock,
        ),
      };
    };
    const sets = { one: sideOf(one, 'bench-topology-1'), two: sideOf(two, 'bench-topology-2') };
    // Each set's settlement schedules run in its own rounds only: the other set's empty runs would cost this one CPU.
    for (const set of Object.values(sets)) await set.clock.pause();
    const sides = { one: sets.one.side, two: sets.two.side };
    // Each round waits for its payouts (payment.settled): they would run in the other side's round and slow it.
    const rounds = await interleaved(
      options.rounds,
      async () => ({ perSecond: await throughput(sides.two, receiver, options.payments, 8, [], true) }),
      async () => ({ perSecond: await throughput(sides.one, receiver, options.payments, 8, [], true) }),
    );
    const figure = figureFrom(rounds, 'perSecond', {
      id: 'topology_payments_per_second',
      title: 'completed payments/s, 2 API + 2 workers',
      unit: 'payments/s',
      better: 'higher',
      includes: `${options.payments} payments per round, 8 customers at a time, spread in turn over two API processes (server.ts), run by two workers (worker.ts) on one task queue, on the production Temporal server on Postgres; each paid through the sandbox and counted at its signed payment.completed (the round then waits for their payment.settled: payouts go in settlement runs every second, PAYOUT_INTERVAL_SECONDS=1, and each set's settlement schedules are paused outside its rounds, so neither a payout nor an empty run lands in the other set's round). On a machine of few cores the processes share them, so the ratio shows what the second pair costs or gains here; the README's capacity model says what it gains on cores of its own.`,
      baselineIs:
        'one API process and one worker on a task queue of their own, on the same Temporal server, database, chain and sandbox, in the same run (rounds interleaved).',
    });
    input.log(`topology: 2 + 2 ${figure.ours.toFixed(2)}/s vs 1 + 1 ${figure.baseline.toFixed(2)}/s`);
    return [figure];
  } catch (err) {
    // What the processes said last explains a round that failed (a 500 from Pay: which statement, which cause).
    for (const c of children) console.error(`--- topology ${c.name} (last output)\n${c.output().slice(-3000)}`);
    throw err;
  } finally {
    for (const c of children.reverse()) await c.stop().catch(() => {});
    await temporal.connection.close();
  }
}
