import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import postgres from 'postgres';
import type { Address } from 'viem';
import { backlogFigures, type BacklogSide } from './figures/backlog';
import { chainWatchFigures } from './figures/chain-watch';
import { creationFigures } from './figures/creation';
import { deliveryFigures } from './figures/deliveries';
import { lookupFigures } from './figures/lookups';
import { paymentFigures } from './figures/payments';
import { paymentListFigures } from './figures/payment-list';
import { topologyFigures } from './figures/topology';
import { createMinimalTables, minimalTreasury } from './minimal/activities';
import { parseOptions } from './options';
import { renderTable, type Figure } from './support/figures';
import { freePort, killStrays, ROOT } from './support/processes';
import { chainReader } from './support/chain-spend';
import { startReceiver } from './support/receiver';
import { createMerchant, startBareLookup, startMinimalWorker, startOurServer, startOurWorker, startSandbox } from './support/services';
import { minimalSide, oursSide, type PaymentSide } from './support/sides';
import { settlementClock } from './support/settlement-clock';
import { statementCountDir } from './support/sql-count';
import { startStack } from './support/stack';
import { stackCpuMeter } from './support/stack-cpu';
import { devTreasuryAddress } from '../tools/dev/dev-sweepers';

// `npm run bench`: its figures, each against a baseline measured in the same run.

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
const QUEUES = {
  idle: 'bench-idle',
  idleMinimal: 'bench-idle-minimal',
  pay: 'bench-pay',
  minimal: 'bench-minimal',
  minimalPayouts: 'bench-minimal-payouts',
};
// A settlement run pays each merchant one transfer: a backlog of one merchant's payments would make
// that one transfer for the whole run, fewer than a service with several merchants sends.
const BACKLOG_MERCHANTS = 5;

async function main() {
  // Whatever ends this process, nothing it started outlives it (a clean run has stopped everything already).
  process.on('exit', killStrays);
  const options = parseOptions(process.argv.slice(2));
  const has = (g: (typeof options.groups)[number]) => options.groups.includes(g);
  if (has('deliveries') && !has('payments'))
    throw new Error("the deliveries figure resends the payment figures' deliveries: add payments to --only");
  const started = Date.now();
  const needsTemporal = has('creation') || has('payments') || has('backlog');
  const stack = await startStack(log, { temporal: needsTemporal ? options.temporal : null });
  const stops: (() => Promise<unknown>)[] = [];
  const children: { name: string; output: () => string }[] = [];
  const figures: Figure[] = [];
  const sql = postgres(stack.databaseUrl, { max: 10, onnotice: () => {} });
  stops.push(() => sql.end({ timeout: 2 }));
  try {
    await createMinimalTables(sql);
    const temporal = needsTemporal
      ? new Client({ connection: await Connection.connect({ address: stack.temporalAddress }), namespace: 'default' })
      : null;
    if (temporal) stops.push(() => temporal.connection.close());
    const receiver = await startReceiver();
    stops.push(() => receiver.close());

    if (has('lookups') || has('creation')) {
      const idle = await startOurServer(stack, { taskQueue: QUEUES.idle, logLevel: options.logLevel });
      stops.push(() => idle.stop());
      const merchant = await createMerchant(idle.baseUrl);
      if (has('lookups')) {
        const bare = await startBareLookup(stack);
        stops.push(() => bare.stop());
        figures.push(
          ...(await lookupFigures({
            options,
            databaseUrl: stack.databaseUrl,
            ours: idle,
            bare,
            merchantId: merchant.id,
            apiKey: merchant.apiKey,
            log,
          })),
        );
        await bare.stop();
      }
      if (has('creation')) {
        const ours = oursSide({ apiUrl: idle.baseUrl, sandboxUrl: '', apiKey: merchant.apiKey });
        const created = await creationFigures({
          options,
          ours,
          meter: stackCpuMeter(stack, sql, () => [idle.child.pid!]),
          serverPid: idle.child.pid!,
          sql,
          temporal: temporal!,
          merchantId: merchant.id,
          idleQueue: QUEUES.idleMinimal,
          webhookUrl: receiver.url,
          profiled: async () => {
            const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-creation-prof-'));
            stops.push(async () => rmSync(dir, { recursive: true, force: true }));
            const server = await startOurServer(stack, { taskQueue: QUEUES.idle, logLevel: options.logLevel, cpuProfileDir: dir });
            stops.push(() => server.stop());
            const side = oursSide({ apiUrl: server.baseUrl, sandboxUrl: '', apiKey: merchant.apiKey });
            return {
              open: () => side.open(),
              stop: async () => {
                // Writing the profile as it exits may take seconds on a loaded machine: not cut short.
                await server.stop(60_000);
                // The node process tsx started writes one profile as it exits.
                const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
                if (files.length === 0) return null;
                // BENCH_KEEP_PROFILE=<file>: the profile kept for reading by hand (bench/support/cpu-profile.ts's topFunctions).
                if (process.env.BENCH_KEEP_PROFILE) copyFileSync(path.join(dir, files[0]!), process.env.BENCH_KEEP_PROFILE);
                return path.join(dir, files[0]!);
              },
            };
          },
        });
        figures.push(...created);
        log(`creation: ${created.map((f) => `${f.id} ${f.ours.toFixed(2)} vs ${f.baseline.toFixed(2)}`).join(', ')}`);
      }
      await idle.stop();
    }

    if (has('payments') || has('backlog')) {
      // Each side's SQL statements, counted in its own processes (the backlog's figure).
      const counts = { ours: statementCountDir(), minimal: statementCountDir(), minimalPaying: statementCountDir() };
      for (const c of Object.values(counts)) stops.push(async () => c.remove());
      const inBench = { minimal: { statements: 0 }, minimalPaying: { statements: 0 } };
      const sandboxPort = await freePort();
      const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
      const server = await startOurServer(stack, {
        taskQueue: QUEUES.pay,
        sandboxUrl,
        logLevel: options.logLevel,
        sqlCountDir: counts.ours.dir,
      });
      stops.push(() => server.stop());
      const sandbox = await startSandbox(stack, server.baseUrl, sandboxPort);
      stops.push(() => sandbox.stop());
      const startOursWorker = () =>
        startOurWorker(stack, { taskQueue: QUEUES.pay, publicBaseUrl: server.baseUrl, sandboxUrl, sqlCountDir: counts.ours.dir });
      const startMinimal = () =>
        startMinimalWorker(stack, { taskQueue: QUEUES.minimal, webhookSecret: 'whsec_bench', sqlCountDir: counts.minimal.dir });
      const startMinimalPaying = () =>
        startMinimalWorker(stack, {
          taskQueue: QUEUES.minimalPayouts,
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
      // Created by ours' worker as it started: from now on they run during ours' turns only.
      const clock = settlementClock(temporal!, QUEUES.pay);
      await clock.pause();
      stops.push(
        () => workers.ours.stop(),
        () => workers.minimal.stop(),
        () => workers.minimalPayouts.stop(),
      );
      const merchant = await createMerchant(server.baseUrl, receiver.url);
      children.push(
        server,
        sandbox,
        { name: 'worker', output: () => workers.ours.output() },
        { name: 'minimal-worker', output: () => workers.minimal.output() },
        { name: 'minimal-payouts-worker', output: () => workers.minimalPayouts.output() },
      );
      const minimal = minimalSide({
        stack,
        temporal: temporal!,
        taskQueue: QUEUES.minimal,
        webhookUrl: receiver.url,
        statements: inBench.minimal,
      });
      stops.push(() => minimal.close());
      const oursPayments = {
        ...oursSide({ apiUrl: server.baseUrl, sandboxUrl, apiKey: merchant.apiKey }),
        clock,
        taskQueue: QUEUES.pay,
        workerPid: () => workers.ours.child.pid!,
      };
      const minimalPayments = { ...minimal.side, taskQueue: QUEUES.minimal, workerPid: () => workers.minimal.child.pid! };
      const minimalPaying = minimalSide({
        stack,
        temporal: temporal!,
        taskQueue: QUEUES.minimalPayouts,
        webhookUrl: receiver.url,
        payOut: true,
        statements: inBench.minimalPaying,
      });
      stops.push(() => minimalPaying.close());
      const minimalPayingPayments = {
        ...minimalPaying.side,
        taskQueue: QUEUES.minimalPayouts,
        workerPid: () => workers.minimalPayouts.child.pid!,
      };
      // The stack under test only (not other Temporal servers, databases or anvils on the machine); the workers' pids as they are now.
      const meter = stackCpuMeter(stack, sql, () =>
        [server.child.pid, sandbox.child.pid, workers.ours.child.pid, workers.minimal.child.pid, workers.minimalPayouts.child.pid].filter(
          (p): p is number => p !== undefined,
        ),
      );
      log(`stack CPU: Temporal server pid ${meter.temporalPid}, anvil pid ${meter.chainPid}, databases ${stack.databases.join(', ')}`);
      if (has('payments')) {
        const result = await paymentFigures({
          options,
          receiver,
          temporal: temporal!,
          ours: oursPayments,
          minimal: minimalPayments,
          minimalPaying: minimalPayingPayments,
          meter,
          log,
        });
        figures.push(...result.figures);
        if (has('deliveries')) {
          figures.push(
            ...(await deliveryFigures({
              options,
              sql,
              temporal: temporal!,
              receiver,
              oursQueue: QUEUES.pay,
              minimalQueue: QUEUES.minimal,
            })),
          );
          log(`deliveries: ours ${figures.at(-1)!.ours.toFixed(1)}/s vs raw ${figures.at(-1)!.baseline.toFixed(1)}/s`);
        }
      }
      if (has('backlog')) {
        const chain = chainReader(stack.rpcUrl);
        const oursDeposits = async (ids: readonly string[]) =>
          (await sql<{ address: Address }[]>`select deposit_address as address from checkout_sessions where id in ${sql(ids)}`).map(
            (r) => r.address,
          );
        // The backlog's payments go to BACKLOG_MERCHANTS merchants in turn (the first is the payment figures').
        const merchants: PaymentSide[] = [oursPayments];
        while (merchants.length < BACKLOG_MERCHANTS) {
          const m = await createMerchant(server.baseUrl, receiver.url);
          merchants.push(oursSide({ apiUrl: server.baseUrl, sandboxUrl, apiKey: m.apiKey }));
        }
        let opened = 0;
        const oursBacklog: BacklogSide = {
          ...oursPayments,
          open: () => merchants[opened++ % merchants.length]!.open(),
          settles: true,
          spend: { treasury: devTreasuryAddress(), deposits: oursDeposits },
          statements: () => counts.ours.read(),
          stopWorker: () => workers.ours.stop(),
          startWorker: async () => void (workers.ours = await startOursWorker()),
        };
        const minimalBacklog: BacklogSide = {
          ...minimalPayments,
          statements: () => counts.minimal.read() + inBench.minimal.statements,
          stopWorker: () => workers.minimal.stop(),
          startWorker: async () => void (workers.minimal = await startMinimal()),
        };
        const minimalPayingBacklog: BacklogSide = {
          ...minimalPayingPayments,
          settles: true,
          spend: {
            treasury: minimalTreasury().address,
            deposits: async (ids) =>
              (await sql<{ address: Address }[]>`select deposit_address as address from bench_min_payments where id in ${sql(ids)}`).map(
                (r) => r.address,
              ),
          },
          statements: () => counts.minimalPaying.read() + inBench.minimalPaying.statements,
          stopWorker: () => workers.minimalPayouts.stop(),
          startWorker: async () => void (workers.minimalPayouts = await startMinimalPaying()),
        };
        figures.push(
          ...(await backlogFigures({
            options,
            receiver,
            ours: oursBacklog,
            minimal: minimalBacklog,
            minimalPaying: minimalPayingBacklog,
            merchants: BACKLOG_MERCHANTS,
            chain,
            temporalServer: options.temporal,
            meter,
            log,
          })),
        );
      }
    }

    if (has('chain-watch')) figures.push(...(await chainWatchFigures({ options, stack, log })));
    if (has('payment-list')) figures.push(...(await paymentListFigures({ options, databaseUrl: stack.databaseUrl, log })));
  } catch (err) {
    // What the processes said last is what explains a figure that never finished.
    for (const c of children) console.error(`--- ${c.name} (last output)\n${c.output().slice(-3000)}`);
    const states = await sql`select status, verification, count(*)::int as n from checkout_sessions group by 1, 2`.catch(() => []);
    const deliveries = await sql`select status, count(*)::int as n from webhook_deliveries group by 1`.catch(() => []);
    console.error(`--- sessions ${JSON.stringify(states)}; deliveries ${JSON.stringify(deliveries)}`);
    throw err;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await stack.stop();
  }

  if (has('topology')) {
    // A stack of its own on the production Temporal server, whichever server the figures above used.
    // Pools sized to Postgres's 100 connections (topology.ts counts ours): the server's default of
    // 4 services × (20 + 5) is all of them alone, and a full run's Pay once answered 500 "too many
    // clients". The smoke run shares Postgres with a test run: smaller still.
    const production = await startStack(log, {
      temporal: 'production',
      temporalConnections: options.quick ? { main: 4, visibility: 2 } : { main: 8, visibility: 2 },
    });
    const receiver = await startReceiver();
    try {
      figures.push(...(await topologyFigures({ options, stack: production, receiver, log })));
    } finally {
      await receiver.close();
      await production.stop();
    }
  }

  const report = {
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    quick: options.quick,
    machine: { cpus: os.cpus().length, loadAverage: os.loadavg(), node: process.version },
    temporalServer: options.temporal,
    options,
    figures,
  };
  const out = options.out ?? path.join(ROOT, '.data', 'bench', `${report.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(renderTable(figures));
  console.log(
    `\n${figures.length} figures in ${report.seconds} s on the ${options.temporal} Temporal server (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}); JSON: ${out}`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
