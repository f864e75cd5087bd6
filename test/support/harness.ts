import { ScheduleNotFoundError } from '@temporalio/client';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { randomBytes, randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp } from '../../src/api/app';
import type { EventStreamSettings } from '../../src/api/routes/merchant-events';
import type { BusinessLog } from '../../src/logging';
import { loadConfig, type Config } from '../../src/config';
import { createDb, type DbHandle } from '../../src/db/client';
import { createActivities, type ActivityDeps } from '../../src/activities';
import { createProviders } from '../../src/providers';
import type { ProviderRegistry } from '../../src/providers/registry';
import { buildSandboxApp } from '../../sandbox/app';
import { settlementKeys } from '../../src/chains/derivation';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { devChainVariables } from '../../tools/dev/test-tokens';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { createTemporalClient } from '../../src/temporal/client';
import { createSessionCanceller } from '../../src/temporal/session-cancel';
import { startChainWatchers, type ChainWatchDeps, type ChainWatchers } from '../../src/watchers/chain-watch';
import { createWorker, WORKFLOWS_ENTRY, type CheckoutWorker } from '../../src/worker/worker';
import { cachedWorkflowBundle, WORKER_BUNDLE_CACHE } from '../../src/worker/workflow-bundle';
import { ensureSettlementSchedule } from '../../src/temporal/settlement-schedules';
import { startCustomerMailSender } from '../../src/activities/customer-mails';
import { createMailer } from '../../src/mail/mailer';
import { createTestDatabase } from './databases';
import { freePort } from './free-port';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // A task queue per file keeps workers of parallel files from taking each other's tasks.
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    ADMIN_TOKEN,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ALLOW_PRIVATE_URLS: 'true',
    SANDBOX_ENABLED: 'true',
    LOG_LEVEL: 'silent',
    // The run's dev chain: the four EVM networks share it, each with its own token contracts.
    ...devChainVariables(inject('chainRpcUrl'), DEV_CHAIN_ID, inject('chainTokens'), inject('chainSweepers')),
    SETTLEMENT_MNEMONIC: DEV_SETTLEMENT_MNEMONIC,
    // A settlement run every 2 s instead of production's half minute: a test waits for a payout in
    // seconds, and an idle file's runs stay few.
    PAYOUT_INTERVAL_SECONDS: '2',
    ...overrides,
  });
}

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  db: DbHandle;
  temporal: Client;
  providers: ProviderRegistry;
  /** With `listen`: the API's base URL over a real socket. */
  baseUrl: string;
  /** With `sandbox`: the sandbox provider, listening on its own port. */
  sandbox: FastifyInstance | undefined;
  /** With `worker`: the checkout worker on this file's task queue. */
  worker: CheckoutWorker | undefined;
  /** The API's clock: the real one, until a test moves it on. */
  clock: TestClock;
}

/** A clock that reads the real time plus whatever a test moved it on by (never back). */
export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  /** Moves the clock on by `ms`: time passing, without waiting for it. */
  advance(ms: number): void {
    if (ms > 0) this.offsetMs += ms;
  }
}

export interface StackOptions {
  extend?: (app: FastifyInstance) => void;
  /** Serve the API on a real port (PUBLIC_BASE_URL points at it). */
  listen?: boolean;
  /** Run the sandbox provider app on its own port. */
  sandbox?: boolean;
  /** Run a checkout worker (workflows + activities) in this process. */
  worker?: boolean;
  /** The merchants' event streams' timings (default: production's). */
  eventStream?: EventStreamSettings;
  /** Where the worker's activities and chain watchers write business events (default: nowhere). */
  businessLog?: BusinessLog;
  /** Without a worker: run the mail outbox's sender anyway when mail is configured (default true; false to drive senders by hand). */
  mailSender?: boolean;
}

/**
 * A fresh database and a built app for one test file, against the run's real Temporal dev
 * server; with options, the whole stack over real sockets. Closed and dropped after the file.
 */
export function useTestApp(overrides: Record<string, string> = {}, options: StackOptions = {}): TestContext {
  const ctx = { sandbox: undefined, worker: undefined, clock: new TestClock() } as TestContext;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    cleanups.push(database.drop);
    const ports: Record<string, string> = {};
    if (options.listen || options.sandbox) {
      const [apiPort, sandboxPort] = await Promise.all([freePort(), freePort()]);
      Object.assign(ports, { PORT: String(apiPort), PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`, SANDBOX_PORT: String(sandboxPort) });
    }
    ctx.config = testConfig(database.url, { ...ports, ...overrides });
    ctx.db = createDb(ctx.config.databaseUrl, { max: 5 });
    cleanups.push(() => ctx.db.close());
    // Every file shares the run's anvil and the dev mnemonic, but has a database of its own: from
    // the same start its sequence would hand out the same deposit addresses as every other file's,
    // and one file's transfers would credit another's sessions. A random start keeps them apart.
    await ctx.db.sql.unsafe(`alter sequence deposit_address_index restart with ${randomInt(0, 2 ** 31 - 2 ** 24)}`);
    const temporal = createTemporalClient(ctx.config.temporal);
    ctx.temporal = temporal.client;
    cleanups.push(temporal.close);
    // The file's settlement schedule, whoever made it (a worker.ts process the file spawned makes its
    // own and leaves it, as a deployment's worker must): left on the run's shared server, it would
    // start a run every interval for the rest of the run, on a task queue nobody polls.
    cleanups.push(async () => {
      await temporal.client.schedule
        .getHandle(settlementScheduleId(ctx.config.temporal.taskQueue))
        .delete()
        .catch((err: unknown) => {
          if (!(err instanceof ScheduleNotFoundError)) throw err;
        });
    });
    ctx.providers = createProviders(ctx.config);

    if (options.sandbox) {
      const sandbox = buildSandboxApp({
        apiKey: ctx.config.providers.sandbox.apiKey,
        callbackSecret: ctx.config.providers.sandbox.callbackSecret,
        publicUrl: ctx.config.providers.sandbox.url,
        serviceUrl: ctx.config.http.publicBaseUrl,
        chains: ctx.config.chains.networks,
        // Its errors only (a delivery on chain that failed): what a failed test needs to explain itself.
        logger: { level: 'error' },
      });
      ctx.sandbox = sandbox;
      await sandbox.listen({ port: ctx.config.providers.sandbox.port, host: '127.0.0.1' });
      cleanups.push(() => sandbox.close());
    }

    const treasuryAddress = ctx.config.chains.settlementMnemonic
      ? settlementKeys(ctx.config.chains.settlementMnemonic).treasury.address
      : null;
    ctx.app = await buildApp(
      {
        config: ctx.config,
        db: ctx.db,
        temporal: ctx.temporal,
        providers: ctx.providers,
        treasuryAddress,
        eventStream: options.eventStream,
        now: ctx.clock.now,
      },
      // Errors only: a 500 in a test prints its cause (an expected 503 is a warning, and stays quiet).
      { logger: { level: 'error' } },
    );
    options.extend?.(ctx.app);
    if (options.listen) {
      await ctx.app.listen({ port: ctx.config.http.port, host: '127.0.0.1' });
    } else {
      await ctx.app.ready();
    }
    ctx.baseUrl = ctx.config.http.publicBaseUrl;
    cleanups.push(() => ctx.app.close());

    if (options.worker) {
      ctx.worker = await startTestWorker(ctx, { businessLog: options.businessLog });
      cleanups.push(() => ctx.worker!.shutdown());
    } else if (options.mailSender !== false) {
      // No worker in this file, but mail configured: the mail outbox's sender runs all the same (as
      // `npm start`'s worker does), so the dashboard's notices written there arrive in the sink.
      const mails = startTestMailSender(ctx);
      if (mails) cleanups.push(async () => mails.stop());
    }
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return ctx;
}

/**
 * The workflow code as worker.ts runs it: its bundle from the same cache, keyed by the sources'
 * content (read again at each call, so a watch run after an edit never gets an old bundle) and made
 * in a child process on a miss. Worker.create given a path would run webpack again for every file
 * that starts a worker, a few seconds each.
 */
export async function workflowBundle(): Promise<{ code: string }> {
  const { code } = await cachedWorkflowBundle(WORKFLOWS_ENTRY, WORKER_BUNDLE_CACHE);
  return { code };
}

/** A worker in this process on the file's task queue, with the real activities (and, unless told not to, the chain watchers). */
export async function startTestWorker(
  ctx: Pick<TestContext, 'config' | 'db' | 'providers' | 'temporal'>,
  options: { watch?: boolean; businessLog?: BusinessLog | undefined } = {},
): Promise<CheckoutWorker> {
  const log = options.businessLog ? { log: options.businessLog } : {};
  const worker = await createWorker({
    temporal: ctx.config.temporal,
    activities: activitiesFor(ctx, log),
    workflowBundle: await workflowBundle(),
  });
  void worker.run();
  // Batched settlement's runs, as worker.ts schedules them, removed with the file's task queue.
  const unschedule = await ensureSettlementSchedule(ctx.temporal, {
    taskQueue: ctx.config.temporal.taskQueue,
    networks: ctx.config.chains.networks,
    settlement: ctx.config.chains.settlement,
  });
  if (options.watch === false)
    return {
      ...worker,
      async shutdown() {
        await unschedule();
        await worker.shutdown();
      },
    };
  // As worker.ts does: the chain watchers (and, with mail configured, the customers' mail sender) live
  // beside the worker and stop with it.
  const watchers = startTestWatchers(ctx, options.businessLog ? { businessLog: options.businessLog } : {});
  const mails = startTestMailSender(ctx);
  return {
    ...worker,
    async shutdown() {
      await unschedule();
      mails?.stop();
      await watchers.stop();
      await worker.shutdown();
    },
  };
}

/** The mail outbox's sender as worker.ts runs it (every 200 ms here), when mail is configured; null otherwise. */
export function startTestMailSender(ctx: Pick<TestContext, 'config' | 'db'>): { stop(): void } | null {
  if (!ctx.config.mail.smtpUrl) return null;
  const mailer = createMailer(ctx.config.mail);
  const sender = startCustomerMailSender({ db: ctx.db.db, mailer, messageHost: new URL(ctx.config.http.publicBaseUrl).hostname }, 200);
  return {
    stop() {
      sender.stop();
      mailer.close();
    },
  };
}

/** The worker's activities on the file's database and Temporal, to call outside a workflow (tests of the rules they hold). */
export function activitiesFor(ctx: Pick<TestContext, 'config' | 'db' | 'temporal' | 'providers'>, extra: Partial<ActivityDeps> = {}) {
  return createActivities({
    db: ctx.db.db,
    providers: ctx.providers,
    publicBaseUrl: ctx.config.http.publicBaseUrl,
    secretsKey: ctx.config.secretsKey,
    allowPrivateUrls: ctx.config.allowPrivateUrls,
    webhooks: ctx.config.webhooks,
    chains: ctx.config.chains,
    cancelSession: createSessionCanceller(ctx.temporal),
    now: () => new Date(),
    ...extra,
  });
}

/** A set of chain watchers as a worker process runs them, on the file's database (fast timers for tests). */
export function startTestWatchers(
  ctx: Pick<TestContext, 'config' | 'db' | 'temporal'>,
  overrides: Partial<ChainWatchDeps> = {},
): ChainWatchers {
  return startChainWatchers({
    db: ctx.db.db,
    databaseUrl: ctx.config.databaseUrl,
    temporal: ctx.temporal,
    networks: ctx.config.chains.networks,
    pollIntervalMs: 200,
    lease: { retryMs: 300, heartbeatMs: 500 },
    lateDeposits: {
      watchHours: ctx.config.chains.lateDepositWatchHours,
      taskQueue: ctx.config.temporal.taskQueue,
      dustThresholdMicro: ctx.config.chains.dustThresholdMicro,
      settlement: ctx.config.chains.settlement,
    },
    reorgs: {
      windowHours: ctx.config.chains.reorgWatchHours,
      chains: ctx.config.chains,
      taskQueue: ctx.config.temporal.taskQueue,
      intervalMs: 500,
    },
    ...overrides,
  });
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

export async function createMerchant(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
): Promise<{ id: string; securityCode: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/merchants',
    headers: adminHeaders,
    payload: {
      name: 'Test Shop',
      wallets: [{ asset: 'USDC', network: 'polygon', address: '0x52908400098527886E0F7030069857D2E4169EE7' }],
      ...body,
    },
  });
  if (res.statusCode !== 201) throw new Error(`create merchant: ${res.statusCode} ${res.body}`);
  const json = res.json();
  return { id: json.merchant.id, securityCode: json.securityCode };
}

/** An approved merchant and its live key (all four scopes). */
export async function createApprovedMerchant(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
): Promise<{ id: string; securityCode: string; apiKey: string }> {
  const merchant = await createMerchant(app, body);
  const res = await app.inject({ method: 'POST', url: `/admin/v1/merchants/${merchant.id}/approve`, headers: adminHeaders });
  if (res.statusCode !== 200) throw new Error(`approve merchant: ${res.statusCode} ${res.body}`);
  return { ...merchant, apiKey: res.json().apiKey };
}
