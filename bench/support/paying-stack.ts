import type { Client } from '@temporalio/client';
import type postgres from 'postgres';
import type { BenchOptions } from '../options';
import { freePort } from './processes';
import type { Receiver } from './receiver';
import { createMerchant, startMinimalWorker, startOurServer, startOurWorker, startSandbox } from './services';
import { minimalSide, oursSide } from './sides';
import { settlementClock } from './settlement-clock';
import { statementCountDir } from './sql-count';
import type { Stack } from './stack';
import { stackCpuMeter } from './stack-cpu';

// The payment and backlog figures' processes on the run's stack: our API server, the sandbox and
// worker, and the minimal implementation's two workers (as it is, and paying out per payment), with
// each side as the figures drive it.

export const PAYING_QUEUES = {
  pay: 'bench-pay',
  minimal: 'bench-minimal',
  minimalPayouts: 'bench-minimal-payouts',
};

/**
 * Starts them on `run.stack`; what it started is stopped by `run.stops` (last first, by the caller),
 * and each process's last output joins `run.children` (a figure that never finished is explained by it).
 */
export async function startPayingStack(run: {
  stack: Stack;
  options: BenchOptions;
  temporal: Client;
  receiver: Receiver;
  sql: postgres.Sql;
  log: (line: string) => void;
  stops: (() => Promise<unknown>)[];
  children: { name: string; output: () => string }[];
}) {
  const { stack, temporal, receiver, sql, log, stops, children } = run;
  // Each side's SQL statements, counted in its own processes (the backlog's figure).
  const counts = { ours: statementCountDir(), minimal: statementCountDir(), minimalPaying: statementCountDir() };
  for (const c of Object.values(counts)) stops.push(async () => c.remove());
  const inBench = { minimal: { statements: 0 }, minimalPaying: { statements: 0 } };
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const server = await startOurServer(stack, {
    taskQueue: PAYING_QUEUES.pay,
    sandboxUrl,
    logLevel: run.options.logLevel,
    sqlCountDir: counts.ours.dir,
  });
  stops.push(() => server.stop());
  const sandbox = await startSandbox(stack, server.baseUrl, sandboxPort);
  stops.push(() => sandbox.stop());
  const startOursWorker = () =>
    startOurWorker(stack, { taskQueue: PAYING_QUEUES.pay, publicBaseUrl: server.baseUrl, sandboxUrl, sqlCountDir: counts.ours.dir });
  const startMinimal = () =>
    startMinimalWorker(stack, { taskQueue: PAYING_QUEUES.minimal, webhookSecret: 'whsec_bench', sqlCountDir: counts.minimal.dir });
  const startMinimalPaying = () =>
    startMinimalWorker(stack, {
      taskQueue: PAYING_QUEUES.minimalPayouts,
      webhookSecret: 'whsec_bench',
      payOut: true,
      sqlCountDir: counts.minimalPaying.dir,
    });
  // Workers come and go (the backlog figure stops and restarts them): stops reach the current one.
  const workers = {
    ours: await startOursWorker(),
    minimal: await startMinimal(),
    // The baseline of the payout figures: the minimal implementation paying each payment out on its own.
    minimalPayouts: await startMinimalPaying(),
  };
  stops.push(
    () => workers.ours.stop(),
    () => workers.minimal.stop(),
    () => workers.minimalPayouts.stop(),
  );
  children.push(
    server,
    sandbox,
    { name: 'worker', output: () => workers.ours.output() },
    { name: 'minimal-worker', output: () => workers.minimal.output() },
    { name: 'minimal-payouts-worker', output: () => workers.minimalPayouts.output() },
  );
  // Created by ours' worker as it started: from now on they run during ours' turns only.
  const clock = settlementClock(temporal, PAYING_QUEUES.pay);
  await clock.pause();
  const merchant = await createMerchant(server.baseUrl, receiver.url);
  const minimal = minimalSide({
    stack,
    temporal,
    taskQueue: PAYING_QUEUES.minimal,
    webhookUrl: receiver.url,
    statements: inBench.minimal,
  });
  stops.push(() => minimal.close());
  const oursPayments = {
    ...oursSide({ apiUrl: server.baseUrl, sandboxUrl, apiKey: merchant.apiKey }),
    clock,
    taskQueue: PAYING_QUEUES.pay,
    workerPid: () => workers.ours.child.pid!,
    apiPid: () => server.child.pid!,
  };
  const minimalPayments = { ...minimal.side, taskQueue: PAYING_QUEUES.minimal, workerPid: () => workers.minimal.child.pid! };
  const minimalPaying = minimalSide({
    stack,
    temporal,
    taskQueue: PAYING_QUEUES.minimalPayouts,
    webhookUrl: receiver.url,
    payOut: true,
    statements: inBench.minimalPaying,
  });
  stops.push(() => minimalPaying.close());
  const minimalPayingPayments = {
    ...minimalPaying.side,
    taskQueue: PAYING_QUEUES.minimalPayouts,
    workerPid: () => workers.minimalPayouts.child.pid!,
  };
  // The stack under test only (not other Temporal servers, databases or anvils on the machine); the workers' pids as they are now.
  const meter = stackCpuMeter(stack, sql, () =>
    [server.child.pid, sandbox.child.pid, workers.ours.child.pid, workers.minimal.child.pid, workers.minimalPayouts.child.pid].filter(
      (p): p is number => p !== undefined,
    ),
  );
  log(`stack CPU: Temporal server pid ${meter.temporalPid}, anvil pid ${meter.chainPid}, databases ${stack.databases.join(', ')}`);
  return {
    counts,
    inBench,
    server,
    sandboxUrl,
    workers,
    startOursWorker,
    startMinimal,
    startMinimalPaying,
    oursPayments,
    minimalPayments,
    minimalPayingPayments,
    meter,
  };
}

export type PayingStack = Awaited<ReturnType<typeof startPayingStack>>;
