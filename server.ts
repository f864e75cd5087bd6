import { buildApp } from './src/api/app';
import { settlementKeys } from './src/chains/derivation';
import { loadConfig } from './src/config';
import { pinoOptions } from './src/logging';
import { API_QUERY_DEADLINE_MS, API_STATEMENT_TIMEOUT_MS, createDb } from './src/db/client';
import { runMigrations } from './src/db/migrate';
import { startSweeper, SWEEP_INTERVAL_MS } from './src/payments/sweep';
import { API_PROVIDER_TIMEOUT_MS, createProviders } from './src/providers';
import { createTemporalClient } from './src/temporal/client';

// The HTTP service. Migrations run here too, under an advisory lock, so a fresh deployment needs
// no separate step; several instances can start at once.
async function main() {
  const config = loadConfig(process.env);
  await runMigrations(config.databaseUrl);
  const db = createDb(config.databaseUrl, {
    max: config.databasePoolMax,
    queryDeadlineMs: API_QUERY_DEADLINE_MS,
    statementTimeoutMs: API_STATEMENT_TIMEOUT_MS,
    applicationName: 'svc-api',
  });
  const temporal = createTemporalClient(config.temporal);
  const treasuryAddress = config.chains.settlementMnemonic ? settlementKeys(config.chains.settlementMnemonic).treasury.address : null;
  const logger = pinoOptions({ level: config.logLevel, pretty: config.logPretty }, { name: 'server' });
  const app = await buildApp(
    { config, db, temporal: temporal.client, providers: createProviders(config, { timeoutMs: API_PROVIDER_TIMEOUT_MS }), treasuryAddress },
    { logger },
  );
  // Payments whose opening a crashed process cut short are resolved within one interval; expired
  // Idempotency-Keys are purged in the same rounds.
  const stopSweeper = startSweeper(app.payments.context, SWEEP_INTERVAL_MS, (err, task) =>
    app.log.error({ err, task }, 'periodic sweep failed'),
  );
  app.addHook('onClose', async () => {
    stopSweeper();
    await Promise.allSettled([db.close(), temporal.close()]);
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));

  await app.listen({ port: config.http.port, host: config.http.host });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
