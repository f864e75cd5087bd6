import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
import { createMinimalTables, minimalTreasury } from './minimal/activities';
import type { BenchOptions } from './options';
import type { groupRunner } from './support/groups';
import { chainReader } from './support/chain-spend';
import { PAYING_QUEUES, startPayingStack, type PayingStack } from './support/paying-stack';
import { startReceiver } from './support/receiver';
import { createMerchant, startBareCreate, startBareLookup, startOurServer } from './support/services';
import { oursSide, type PaymentSide } from './support/sides';
import { startStack } from './support/stack';
import { stackCpuMeter } from './support/stack-cpu';
import { devTreasuryAddress } from '../tools/dev/dev-sweepers';

// The task queues of the lookup and creation figures' idle API server and of the bare baseline (the
// payment figures' are bench/support/paying-stack.ts's).
const IDLE_QUEUES = { idle: 'bench-idle', idleBare: 'bench-idle-bare' };

// A settlement run pays each merchant one transfer: a backlog of one merchant's payments would make
// that one transfer for the whole run, fewer than a service with several merchants sends.
const BACKLOG_MERCHANTS = 5;

/**
 * The groups that share the run's stack (its Temporal server, anvil and database), each run by
 * `runner` so that one that throws leaves the others' figures. What several groups share (the idle
 * API server; the payment figures' servers and workers) is started by the first that needs it.
 */
export async function stackGroups(
  options: BenchOptions,
  runner: ReturnType<typeof groupRunner>,
  temporalUsable: boolean,
  log: (line: string) => void,
) {
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
      const server = await startOurServer(stack, { taskQueue: IDLE_QUEUES.idle, logLevel: options.logLevel });
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
        const bare = await startBareCreate(stack, IDLE_QUEUES.idleBare);
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
                taskQueue: IDLE_QUEUES.idle,
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
    let paying: Promise<PayingStack> | null = null;
    const payingStack = () => (paying ??= startPayingStack({ stack, options, temporal: temporal!, receiver, sql, log, stops, children }));

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
          oursQueue: PAYING_QUEUES.pay,
          minimalQueue: PAYING_QUEUES.minimal,
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
