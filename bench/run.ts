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
import { FIGURE_GROUPS, parseOptions } from './options';
import { renderTable, spreadOf } from './support/figures';
import { groupRunner, reasonOf, renderGroups } from './support/groups';
import { freePort, killStrays, ROOT } from './support/processes';
import { chainReader } from './support/chain-spend';
import { startReceiver } from './support/receiver';
import {
  createMerchant,
  startBareCreate,
  startBareLookup,
  startMinimalWorker,
  startOurServer,
  startOurWorker,
  startSandbox,
} from './support/services';
import { minimalSide, oursSide, type PaymentSide } from './support/sides';
import { settlementClock } from './support/settlement-clock';
import { statementCountDir } from './support/sql-count';
import { startStack } from './support/stack';
import { stackCpuMeter } from './support/stack-cpu';
import { devTreasuryAddress } from '../tools/dev/dev-sweepers';
import { ensureTemporalBinary } from '../tools/temporal/cli-binary';
import { ensureServerBinaries } from '../tools/temporal/server/binaries';

// `npm run bench`: its figures, each against a baseline measured in the same run.

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
const QUEUES = {
  idle: 'bench-idle',
  idleBare: 'bench-idle-bare',
  pay: 'bench-pay',
  minimal: 'bench-minimal',
  minimalPayouts: 'bench-minimal-payouts',
};
// A settlement run pays each merchant one transfer: a backlog of one merchant's payments would make
// that one transfer for the whole run, fewer than a service with several merchants sends.
const BACKLOG_MERCHANTS = 5;

/** The groups that run on the run's own stack (the topology group starts a stack of its own). */
const STACK_GROUPS = ['lookups', 'creation', 'payments', 'deliveries', 'backlog', 'chain-watch', 'payment-list'] as const;

/**
 * What a run needs built before any group starts its timers and children: the Temporal CLI (the dev
 * server, and the production server's namespace set-up) and the production server's binaries. A
 * first build takes minutes of both cores, and done while a group starts its stack it starved it (an
 * anvil that did not listen within its 30 s). Answers why each could not be had, or null.
 */
function prerequisites(needs: { cli: boolean; production: boolean }): { cli: string | null; production: string | null } {
  const attempt = (what: string, build: () => unknown) => {
    try {
      log(`prerequisite: ${what}`);
      build();
      return null;
    } catch (err) {
      return `${what} could not be built: ${reasonOf(err)}`;
    }
  };
  const cli = needs.cli ? attempt('the Temporal CLI', () => ensureTemporalBinary(log)) : null;
  const production = needs.production
    ? (cli ?? attempt('the production Temporal server (temporal-server, temporal-sql-tool)', () => ensureServerBinaries(log)))
    : null;
  return { cli, production };
}

async function main() {
  // Whatever ends this process, nothing it started outlives it (a clean run has stopped everything already).
  process.on('exit', killStrays);
  const options = parseOptions(process.argv.slice(2));
  const runner = groupRunner(log, options.groups);
  const { has } = runner;
  if (has('deliveries') && !has('payments'))
    throw new Error("the deliveries figure resends the payment figures' deliveries: add payments to --only");
  const started = Date.now();
  const loadAverageAtStart = os.loadavg();
  const needsTemporal = has('creation') || has('payments') || has('backlog');
  const ready = prerequisites({
    cli: needsTemporal || has('topology'),
    production: has('topology') || (needsTemporal && options.temporal === 'production'),
  });
  if (ready.cli) runner.fail(['creation', 'payments', 'deliveries', 'backlog', 'topology'], ready.cli);
  if (ready.production)
    runner.fail(
      options.temporal === 'production' ? ['creation', 'payments', 'deliveries', 'backlog', 'topology'] : ['topology'],
      ready.production,
    );
  const temporalUsable = needsTemporal && !ready.cli && !(options.temporal === 'production' && ready.production);

  if (STACK_GROUPS.some((g) => has(g) && !runner.failed(g))) {
    await stackGroups(options, runner, temporalUsable).catch((err: unknown) =>
      runner.fail(STACK_GROUPS, `the run's stack: ${reasonOf(err)}`),
    );
  }

  await runner.run('topology', async () => {
    // A stack of its own on the production Temporal server, whichever server the figures above used.
    // Pools sized to Postgres's 100 connections (topology.ts counts ours): the server's default of
    // 4 services × (20 + 5) is all of them alone, and a full run's Pay once answered 500 "too many
    // clients". The smoke run shares Postgres with a test run: smaller still.
    const production = await startStack(log, {
      temporal: 'production',
      temporalConnections: options.quick ? { main: 4, visibility: 2 } : { main: 8, visibility: 2 },
    });
    try {
      const receiver = await startReceiver();
      try {
        return await topologyFigures({ options, stack: production, receiver, log });
      } finally {
        await receiver.close();
      }
    } finally {
      await production.stop();
    }
  });

  const { figures } = runner;
  // In the groups' own order, whenever each was reported (one whose prerequisite failed, before any ran).
  const reports = [...runner.reports].sort((a, b) => FIGURE_GROUPS.indexOf(a.group) - FIGURE_GROUPS.indexOf(b.group));
  const failed = reports.filter((r) => r.status === 'failed');
  const report = {
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    quick: options.quick,
    ok: failed.length === 0,
    machine: { cpus: os.cpus().length, loadAverageAtStart, loadAverage: os.loadavg(), node: process.version },
    temporalServer: options.temporal,
    options,
    groups: reports,
    // Each figure's median (ours, baseline) with every round's value and their min, median and max.
    figures: figures.map((f) => ({ ...f, spread: spreadOf(f) })),
  };
  const out = options.out ?? path.join(ROOT, '.data', 'bench', `${report.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(renderTable(figures));
  console.log(`\n${renderGroups(reports)}`);
  console.log(
    `\n${figures.length} figures in ${report.seconds} s on the ${options.temporal} Temporal server (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})${failed.length ? `; FAILED: ${failed.map((r) => r.group).join(', ')}` : ''}; JSON: ${out}`,
  );
  if (failed.length) process.exitCode = 1;
}

/**
 * The groups that share the run's stack (its Temporal server, anvil and database), each run by
 * `runner` so that one that throws leaves the others' figures. What several groups share (the idle
 * API server; the payment figures' servers and workers) is started by the first that needs it.
 */
async function stackGroups(options: ReturnType<typeof parseOptions>, runner: ReturnType<typeof groupRunner>, temporalUsable: boolean) {
  const stack = await startStack(log, { temporal: temporalUsable ? options.temporal : null });
  const stops: (() => Promise<unknown>)[] = [];
  const children: { name: string; output: () => string }[] = [];
  const sql = postgres(stack.databaseUrl, { max: 10, onnotice: () => {} });
  stops.push(() => sql.end({ timeout: 2 }));
  // What the processes said last, and where the payments stood, explain a figure that never finished.
  const explain = async () => {
    for (const c of children) console.error(`--- ${c.name} (last output)\n${c.output().slice(-3000)}`);
    const states = await sql`select status, verification, count(*)::int as n from checkout_sessions group by 1, 2`.catch(() => []);
    const deliveries = await sql`select status, count(*)::int as n from webhook_deliveries group by 1`.catch(() => []);
    console.error(`--- sessions ${JSON.stringify(states)}; deliveries ${JSON.stringify(deliveries)}`);
  };
  try {
    await createMinimalTables(sql);
    const temporal = temporalUsable
      ? new Client({ connection: await Connection.connect({ address: stack.temporalAddress }), namespace: 'default' })
      : null;
    if (temporal) stops.push(() => temporal.connection.close());
    const receiver = await startReceiver();
    stops.push(() => receiver.close());

    // The idle API server of the lookup and creation figures (no worker polls its task queue).
    const idleStarted: { server: ReturnType<typeof startIdle> | null } = { server: null };
    const startIdle = async () => {
      const server = await startOurServer(stack, { taskQueue: QUEUES.idle, logLevel: options.logLevel });
      stops.push(() => server.stop());
      children.push(server);
      return { server, merchant: await createMerchant(server.baseUrl) };
    };
    const idle = () => (idleStarted.server ??= startIdle());

    await runner.run('lookups', async () => {
      const { server, merchant } = await idle();
      const bare = await startBareLookup(stack);
      try {
        return await lookupFigures({
          options,
          databaseUrl: stack.databaseUrl,
          ours: server,
          bare,
          merchantId: merchant.id,
          apiKey: merchant.apiKey,
          log,
        });
      } finally {
        await bare.stop();
      }
    });

    await runner.run(
      'creation',
      async () => {
        const { server, merchant } = await idle();
        const bare = await startBareCreate(stack, QUEUES.idleBare);
        children.push(bare);
        try {
          const created = await creationFigures({
            options,
            ours: oursSide({ apiUrl: server.baseUrl, sandboxUrl: '', apiKey: merchant.apiKey }),
            bare: oursSide({ apiUrl: bare.baseUrl, sandboxUrl: '', apiKey: merchant.apiKey }),
            serverPid: server.child.pid!,
            barePid: bare.child.pid!,
            meter: stackCpuMeter(stack, sql, () => [server.child.pid!, bare.child.pid!]),
            profiled: async () => {
              const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-creation-prof-'));
              stops.push(async () => rmSync(dir, { recursive: true, force: true }));
              const profiledServer = await startOurServer(stack, {
                taskQueue: QUEUES.idle,
                logLevel: options.logLevel,
                cpuProfileDir: dir,
              });
              stops.push(() => profiledServer.stop());
              const side = oursSide({ apiUrl: profiledServer.baseUrl, sandboxUrl: '', apiKey: merchant.apiKey });
              return {
                open: () => side.open(),
                stop: async () => {
                  // Writing the profile as it exits may take seconds on a loaded machine: not cut short.
                  await profiledServer.stop(60_000);
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
          log(`creation: ${created.map((f) => `${f.id} ${f.ours.toFixed(2)} vs ${f.baseline.toFixed(2)}`).join(', ')}`);
          return created;
        } finally {
          await bare.stop();
        }
      },
      explain,
    );
    if (idleStarted.server) await (await idleStarted.server.catch(() => null))?.server.stop();

    // The payment and backlog figures' servers, sandbox and workers, started by the first of them.
    let paying: ReturnType<typeof startPaying> | null = null;
    const startPaying = async () => {
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
      const clock = settlementClock(temporal!, QUEUES.pay);
      await clock.pause();
      const merchant = await createMerchant(server.baseUrl, receiver.url);
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
        apiPid: () => server.child.pid!,
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
    };
    const payingStack = () => (paying ??= startPaying());

    await runner.run(
      'payments',
      async () => {
        const p = await payingStack();
        const result = await paymentFigures({
          options,
          receiver,
          temporal: temporal!,
          ours: p.oursPayments,
          minimal: p.minimalPayments,
          minimalPaying: p.minimalPayingPayments,
          meter: p.meter,
          log,
        });
        return result.figures;
      },
      explain,
    );
    if (runner.failed('payments'))
      runner.fail(['deliveries'], "not run: it resends the payment figures' deliveries, and that group failed");
    await runner.run(
      'deliveries',
      async () => {
        const figures = await deliveryFigures({
          options,
          sql,
          temporal: temporal!,
          receiver,
          oursQueue: QUEUES.pay,
          minimalQueue: QUEUES.minimal,
        });
        log(`deliveries: ours ${figures.at(-1)!.ours.toFixed(1)}/s vs raw ${figures.at(-1)!.baseline.toFixed(1)}/s`);
        return figures;
      },
      explain,
    );
    await runner.run(
      'backlog',
      async () => {
        const p = await payingStack();
        const chain = chainReader(stack.rpcUrl);
        const oursDeposits = async (ids: readonly string[]) =>
          (await sql<{ address: Address }[]>`select deposit_address as address from checkout_sessions where id in ${sql(ids)}`).map(
            (r) => r.address,
          );
        // The backlog's payments go to BACKLOG_MERCHANTS merchants in turn (the first is the payment figures').
        const merchants: PaymentSide[] = [p.oursPayments];
        while (merchants.length < BACKLOG_MERCHANTS) {
          const m = await createMerchant(p.server.baseUrl, receiver.url);
          merchants.push(oursSide({ apiUrl: p.server.baseUrl, sandboxUrl: p.sandboxUrl, apiKey: m.apiKey }));
        }
        let opened = 0;
        const { workers, counts, inBench } = p;
        const oursBacklog: BacklogSide = {
          ...p.oursPayments,
          open: () => merchants[opened++ % merchants.length]!.open(),
          settles: true,
          spend: { treasury: devTreasuryAddress(), deposits: oursDeposits },
          statements: () => counts.ours.read(),
          stopWorker: () => workers.ours.stop(),
          startWorker: async () => void (workers.ours = await p.startOursWorker()),
        };
        const minimalBacklog: BacklogSide = {
          ...p.minimalPayments,
          statements: () => counts.minimal.read() + inBench.minimal.statements,
          stopWorker: () => workers.minimal.stop(),
          startWorker: async () => void (workers.minimal = await p.startMinimal()),
        };
        const minimalPayingBacklog: BacklogSide = {
          ...p.minimalPayingPayments,
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
          startWorker: async () => void (workers.minimalPayouts = await p.startMinimalPaying()),
        };
        return backlogFigures({
          options,
          receiver,
          ours: oursBacklog,
          minimal: minimalBacklog,
          minimalPaying: minimalPayingBacklog,
          merchants: BACKLOG_MERCHANTS,
          chain,
          temporalServer: options.temporal,
          meter: p.meter,
          log,
        });
      },
      explain,
    );

    await runner.run('chain-watch', () => chainWatchFigures({ options, stack, log }));
    await runner.run('payment-list', () => paymentListFigures({ options, databaseUrl: stack.databaseUrl, log }));
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
