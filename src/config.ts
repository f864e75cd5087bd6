import { z } from 'zod';
import { chainNetworkVariables, chainSettingsOf, chainVariables, parseChainNetworks, type ChainSettings } from './config/chains';
import { httpSettingsOf, httpVariables, type HttpSettings } from './config/http';
import { notificationSettingsOf, notificationVariables, type MailSettings, type WebhookSettings } from './config/notifications';
import { booleanFlag, ConfigError, issuesOf, port, postgresUrl, presentOf } from './config/parse';
import { paymentSettingsOf, paymentVariables, type CheckoutSettings, type SimpleOrderSettings } from './config/payments';
import { productionIssues } from './config/production';
import { providerSettingsOf, providerVariables, type ProviderSettings } from './config/providers';

// The only module that reads environment variables: everything else receives the parsed Config.
// Names are the runtime contract; docker-compose.yml and docs/configuration.md use them verbatim.
// Each area's variables, their bounds and the settings made of them are in src/config/; this module
// puts them together into one schema and one Config, and refuses what production must not run on.

export { ConfigError } from './config/parse';
export { DEVELOPMENT_VALUES } from './config/production';
export { tokenContractsOf, type ChainNetworkConfig, type ChainSettings, type SettlementSettings } from './config/chains';
export type { WebhookSettings } from './config/notifications';
export { loadSweeperDeploymentConfig } from './config/sweeper-deployment';
export { loadTemporalServerConfig } from './config/temporal-server';

const secretsKey = z
  .string()
  .refine((v) => decodeKey(v) !== null, {
    message: 'must be 32 bytes, as 64 hex characters or base64',
  })
  .transform((v) => decodeKey(v) as Buffer);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  ...httpVariables,
  DATABASE_URL: postgresUrl.default('postgres://postgres@127.0.0.1:5432/svc'),
  // Connections each process keeps to Postgres at most (a worker's chain watchers hold one more each, for their leases).
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('checkout'),
  // Payouts a worker process sends at once, on their own task queue (domain/task-queues.ts).
  PAYOUT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters'),
  SECRETS_KEY: secretsKey,
  ...providerVariables,
  ...paymentVariables,
  ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  // Bearer token for GET /metrics; without it /metrics answers 404 in production (open elsewhere).
  METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  // The worker serves the Temporal SDK's Prometheus metrics on this port (off when unset).
  WORKER_METRICS_PORT: port.optional(),
  // pretty: pino-pretty's lines for a terminal (`npm start` sets it); json: one JSON object a line.
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // How long the dashboard's audit log keeps a row (who did what, when, from where); the API's sweep
  // removes older ones. 400 days: a year of history, with a month to spare for a yearly review.
  DASHBOARD_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  ...notificationVariables,
  ...chainVariables,
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  http: HttpSettings;
  /** token: null means /metrics is open outside production and absent in production. */
  metrics: { token: string | null; workerPort: number | null };
  databaseUrl: string;
  databasePoolMax: number;
  /** payoutConcurrency: payouts one worker process sends at once, on the payouts' own task queue. */
  temporal: { address: string; namespace: string; taskQueue: string; payoutConcurrency: number };
  adminToken: string;
  secretsKey: Buffer;
  providers: ProviderSettings;
  checkout: CheckoutSettings;
  simpleOrders: SimpleOrderSettings;
  allowPrivateUrls: boolean;
  webhooks: WebhookSettings;
  chains: ChainSettings;
  logLevel: string;
  logPretty: boolean;
  mail: MailSettings;
  /** auditRetentionDays: the dashboard's audit rows older than this are purged by the API's sweep. */
  dashboard: { auditRetentionDays: number };
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = presentOf(env);
  const parsed = envSchema.safeParse(present);
  const chainNetworks = parseChainNetworks(present);
  const issues = [...(parsed.success ? [] : issuesOf(parsed.error.issues)), ...chainNetworks.issues];
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  const e = parsed.data;
  const mnemonic = e.SETTLEMENT_MNEMONIC ?? null;
  if (chainNetworks.networks.length > 0 && !mnemonic) {
    throw new ConfigError([{ variable: 'SETTLEMENT_MNEMONIC', message: 'is required when a CHAIN_<NETWORK>_RPC_URL is set' }]);
  }
  // The mnemonic is compared as parsed (normalised words), so spacing cannot smuggle the dev phrase in.
  const refusals = productionIssues(e.NODE_ENV, { ...present, SETTLEMENT_MNEMONIC: mnemonic ?? undefined }, e.SANDBOX_ENABLED);
  // pino-pretty is a development dependency, absent from the production image.
  if (e.NODE_ENV === 'production' && e.LOG_FORMAT === 'pretty')
    refusals.push({ variable: 'LOG_FORMAT', message: 'pretty is for a terminal in development; production writes JSON lines' });
  if (refusals.length > 0) throw new ConfigError(refusals);
  const production = e.NODE_ENV === 'production';
  const providers = providerSettingsOf(e, production);
  const { sandbox } = providers;
  return {
    nodeEnv: e.NODE_ENV,
    http: httpSettingsOf(e),
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      payoutConcurrency: e.PAYOUT_CONCURRENCY,
    },
    metrics: { token: e.METRICS_TOKEN ?? null, workerPort: e.WORKER_METRICS_PORT ?? null },
    adminToken: e.ADMIN_TOKEN,
    secretsKey: e.SECRETS_KEY,
    providers,
    ...paymentSettingsOf(e),
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    chains: chainSettingsOf(e, chainNetworks.networks, sandbox.enabled ? `${sandbox.publicUrl}/explorer/tx` : null),
    logLevel: e.LOG_LEVEL,
    logPretty: e.LOG_FORMAT === 'pretty',
    ...notificationSettingsOf(e, production),
    dashboard: { auditRetentionDays: e.DASHBOARD_AUDIT_RETENTION_DAYS },
  };
}

/** Names of every variable the config reads; the compose test checks services against it. */
export const configVariables = [...Object.keys(envSchema.shape), ...chainNetworkVariables];

function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : null;
}
