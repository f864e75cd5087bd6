import { loadConfig } from './src/config';
import { pinoOptions } from './src/logging';
import { buildSandboxApp } from './sandbox/app';

// The sandbox provider as its own process, on its own port, as a real provider would be.
async function main() {
  const config = loadConfig(process.env);
  // Its test helper pays any payment, so it never starts by accident.
  if (!config.providers.sandbox.enabled) {
    throw new Error('The sandbox provider runs only with SANDBOX_ENABLED=true (it simulates payments; never expose it).');
  }
  const app = buildSandboxApp({
    apiKey: config.providers.sandbox.apiKey,
    callbackSecret: config.providers.sandbox.callbackSecret,
    publicUrl: config.providers.sandbox.publicUrl,
    serviceUrl: config.http.serviceUrl,
    servicePublicUrl: config.http.publicBaseUrl,
    logger: pinoOptions({ level: config.logLevel, pretty: config.logPretty }, { name: 'sandbox' }),
    chains: config.chains.networks,
  });
  const stop = () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await app.listen({ port: config.providers.sandbox.port, host: config.http.host });
  app.log.info({ url: config.providers.sandbox.publicUrl }, 'sandbox provider listening');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
