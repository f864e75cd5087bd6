import path from 'node:path';
import { ConfigError, loadTemporalServerConfig } from '../src/config';
import { PROJECT_ROOT } from '../tools/temporal/cli-binary';
import { portsFrom, startProductionServer } from '../tools/temporal/server';

// `npm run temporal:server`: the production Temporal server (v1.29.1, the version docker-compose.yml
// pins) on this host's Postgres, instead of the dev server's SQLite file. Every step is skipped when
// already done, so a re-run only starts the process. Ctrl-C stops it; its state stays in Postgres.
async function main() {
  let config;
  try {
    config = loadTemporalServerConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const dir = path.join(path.resolve(config.dataDir ?? path.join(PROJECT_ROOT, '.data')), 'temporal-server');
  const started = Date.now();
  const server = await startProductionServer({
    dir,
    databases: { postgresUrl: config.postgresUrl, main: config.database, visibility: `${config.database}_visibility` },
    ports: portsFrom(config.port),
    namespace: config.namespace,
  });
  console.log(
    [
      '',
      `Temporal server ${server.address} is running (ready in ${((Date.now() - started) / 1000).toFixed(1)} s); Ctrl-C stops it.`,
      `  Namespace:  ${config.namespace} (search attributes MerchantId, OrderId, PaymentStatus, Provider)`,
      `  Databases:  ${config.database}, ${config.database}_visibility`,
      `  Log:        ${server.logFile}`,
      `  Use it:     TEMPORAL_ADDRESS=${server.address} npm start`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping the Temporal server…');
    void server.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const status = await server.exited;
  if (!stopping) {
    console.error(`temporal-server exited (${status}); see ${server.logFile}`);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
