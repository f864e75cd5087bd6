import { createActivities } from './src/activities';
import { startCustomerMailSender } from './src/activities/customer-mails';
import { createMailer } from './src/mail/mailer';
import { loadConfig } from './src/config';
import { createDb } from './src/db/client';
import { businessLog, createLogger, REDACTED_PATHS } from './src/logging';
import { createProviders } from './src/providers';
import { startChainWatchers } from './src/watchers/chain-watch';
import { createTemporalClient } from './src/temporal/client';
import { createSessionCanceller } from './src/temporal/session-cancel';
import { ensureSettlementSchedule } from './src/temporal/settlement-schedules';
import { loopbackPort, startWorkerMetrics } from './src/worker/metrics-server';
import { installWorkerRuntime } from './src/worker/runtime';
import { createWorker, WORKFLOWS_ENTRY } from './src/worker/worker';
import { cachedWorkflowBundle, WORKER_BUNDLE_CACHE } from './src/worker/workflow-bundle';

// The Temporal worker process: workflows plus activities. Several can run side by side.
async function main() {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel, pretty: config.logPretty }, { name: 'worker', redact: REDACTED_PATHS });
  const metricsPort = config.metrics.workerPort;
  const production = config.nodeEnv === 'production';
  // The SDK's exporter, on loopback; served on WORKER_METRICS_PORT by startWorkerMetrics below. In
  // production without METRICS_TOKEN the worker's /metrics answers 404, as the API's does, so no
  // exporter runs.
  const exporterPort = metricsPort && (config.metrics.token || !production) ? await loopbackPort() : null;
  installWorkerRuntime({ logger, metrics: exporterPort ? { port: exporterPort } : null });
  if (metricsPort && !exporterPort) {
    logger.warn('worker: WORKER_METRICS_PORT is set without METRICS_TOKEN; production serves no metrics without a token');
  }
  // Bundled before anything else is opened, in a child process, or taken from the cache when the
  // sources are what it was made from: see workflow-bundle.ts.
  const { cached: bundleCached, ...workflowBundle } = await cachedWorkflowBundle(WORKFLOWS_ENTRY, {
    ...WORKER_BUNDLE_CACHE,
    onWriteError: (err) =>
      logger.warn({ err, dir: WORKER_BUNDLE_CACHE.dir }, 'worker: the workflow bundle could not be cached; the next start bundles again'),
  });
  const db = createDb(config.databaseUrl, { max: config.databasePoolMax, applicationName: 'svc-worker' });
  const metrics = metricsPort
    ? await startWorkerMetrics({
        host: config.http.host,
        port: metricsPort,
        token: config.metrics.token,
        production,
        db: db.db,
        exporterUrl: exporterPort ? `http://127.0.0.1:${exporterPort}/metrics` : null,
        logger,
      })
    : null;
  // The chain watchers signal workflows, and the event activities start delivery workflows, through this client.
  const temporal = createTemporalClient(config.temporal);
  // Business events: the activities' and the reorg re-checks' payouts alike.
  const events = businessLog(logger);
  const worker = await createWorker({
    temporal: config.temporal,
    workflowBundle,
    activities: createActivities({
      db: db.db,
      providers: createProviders(config),
      publicBaseUrl: config.http.publicBaseUrl,
      secretsKey: config.secretsKey,
      allowPrivateUrls: config.allowPrivateUrls,
      webhooks: config.webhooks,
      chains: config.chains,
      cancelSession: createSessionCanceller(temporal.client),
      now: () => new Date(),
      log: events,
    }),
  });
  // One process at a time watches each network (an advisory lease); the other workers stand by.
  const watchers = startChainWatchers({
    db: db.db,
    databaseUrl: config.databaseUrl,
    temporal: temporal.client,
    networks: config.chains.networks,
    log: (message) => logger.warn(message),
    businessLog: events,
    lateDeposits: {
      watchHours: config.chains.lateDepositWatchHours,
      taskQueue: config.temporal.taskQueue,
      dustThresholdMicro: config.chains.dustThresholdMicro,
      settlement: config.chains.settlement,
    },
    reorgs: { windowHours: config.chains.reorgWatchHours, chains: config.chains, taskQueue: config.temporal.taskQueue },
  });
  // Settlement runs (docs/settlement.md): the server's schedules, brought to this config.
  await ensureSettlementSchedule(temporal.client, {
    taskQueue: config.temporal.taskQueue,
    networks: config.chains.networks,
    settlement: config.chains.settlement,
  });
  // Customers' receipts and refund notices, when mail is configured; any worker may send.
  const mailer = config.mail.smtpUrl ? createMailer(config.mail) : null;
  const mails = mailer
    ? startCustomerMailSender({
        db: db.db,
        mailer,
        messageHost: new URL(config.http.publicBaseUrl).hostname,
        log: (message, fields) => logger.warn(fields, message),
      })
    : null;
  const stop = () => void worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The start-up line shows at any level but silent: supervisors and tests wait for it.
  const startup = config.logLevel === 'silent' ? logger : logger.child({}, { level: 'info' });
  startup.info(
    {
      taskQueue: config.temporal.taskQueue,
      address: config.temporal.address,
      workflowBundle: bundleCached ? 'cached' : 'bundled',
      metrics: metrics?.url ?? null,
    },
    `worker: polling task queue "${config.temporal.taskQueue}"`,
  );
  try {
    await worker.run();
  } finally {
    await watchers.stop();
    await metrics?.close();
    mails?.stop();
    mailer?.close();
    await temporal.close();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
