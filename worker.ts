import { createActivities } from './src/activities';
import { loadConfig } from './src/config';
import { createDb } from './src/db/client';
import { createProviders } from './src/providers';
import { createWorker } from './src/temporal/worker';

// The Temporal worker process: workflows plus activities. Several can run side by side.
async function main() {
  const config = loadConfig(process.env);
  const db = createDb(config.databaseUrl);
  const worker = await createWorker({
    temporal: config.temporal,
    activities: createActivities({
      db: db.db,
      providers: createProviders(config),
      publicBaseUrl: config.http.publicBaseUrl,
      secretsKey: config.secretsKey,
      allowPrivateUrls: config.allowPrivateUrls,
      webhooks: config.webhooks,
      now: () => new Date(),
    }),
  });
  const stop = () => void worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(`worker: polling task queue "${config.temporal.taskQueue}" on ${config.temporal.address}`);
  try {
    await worker.run();
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
