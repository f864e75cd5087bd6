import type { Address } from 'viem';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { EVM_NETWORKS, type EvmNetwork } from './domain/assets';
import { isEvmAddress } from './domain/evm-address';
import { DEV_SETTLEMENT_MNEMONIC, isValidMnemonic } from './domain/mnemonic';
import { parseCrypto } from './domain/money';

// The only module that reads environment variables: everything else receives the parsed Config.
// Names are the runtime contract; docker-compose.yml and docs/configuration.md use them verbatim.

const booleanFlag = z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((v) => v === 'true' || v === '1');

const port = z.coerce.number().int().min(1).max(65535);

const secretsKey = z
  .string()
  .refine((v) => decodeKey(v) !== null, {
    message: 'must be 32 bytes, as 64 hex characters or base64',
  })
  .transform((v) => decodeKey(v) as Buffer);

/**
 * Values published in this repository (defaults, examples): fine on a laptop, no secret anywhere
 * else. NODE_ENV=production refuses to start with any of them. A new development
 * default (a dev mnemonic, a test key) is one more entry here.
 */
export const DEVELOPMENT_VALUES: Readonly<Record<string, readonly string[]>> = {
  SANDBOX_API_KEY: ['sbx_sk_local_development'],
  SANDBOX_CALLBACK_SECRET: ['sbx_whsec_local_development'],
  // The dev chain's public phrase: its keys would hold real money in production.
  SETTLEMENT_MNEMONIC: [DEV_SETTLEMENT_MNEMONIC],
};

/** Variables whose development value is filled in outside production, and only there. */
const DEVELOPMENT_DEFAULTS: Readonly<Record<string, string>> = {
  SANDBOX_API_KEY: 'sbx_sk_local_development',
  SANDBOX_CALLBACK_SECRET: 'sbx_whsec_local_development',
};

// TRUST_PROXY: addresses or CIDRs of our own reverse proxies, comma-separated. Only a peer in this
// list may say, through X-Forwarded-For, who the client is (the per-IP limits key on that answer).
const trustProxy = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  )
  .refine((list) => list.every(isAddressOrCidr), { message: 'must be a comma-separated list of IP addresses or CIDRs' });

// A stablecoin or USD amount as decimal text (at most 6 decimals), held in micro units: never a float.
const microAmount = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a decimal amount with at most 6 decimals')
  .transform((v) => parseCrypto(v));

const DEFAULT_NETWORK_FEES = 'ethereum:5.00,polygon:0.05,base:0.05,arbitrum:0.05';
// SIMPLE_ORDER_NETWORK_FEES: `network:amount` pairs, comma-separated; a network left out keeps its default.
const networkFees = z.string().transform((v, ctx) => {
  const fees = Object.fromEntries(
    DEFAULT_NETWORK_FEES.split(',')
      .map((pair) => pair.split(':') as [EvmNetwork, string])
      .map(([n, a]) => [n, parseCrypto(a)]),
  ) as Record<EvmNetwork, bigint>;
  for (const pair of v
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const match = /^([a-z]+):(\d{1,12}(?:\.\d{1,6})?)$/.exec(pair);
    if (!match || !(EVM_NETWORKS as readonly string[]).includes(match[1]!)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${pair}" is not <network>:<amount> with one of ${EVM_NETWORKS.join(', ')} and at most 6 decimals`,
      });
      return z.NEVER;
    }
    fees[match[1] as EvmNetwork] = parseCrypto(match[2]!);
  }
  return fees;
});

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  // How other processes of the deployment reach the service (the sandbox posts its callbacks and
  // presses Pay there); customers never see it. Default: PUBLIC_BASE_URL.
  SERVICE_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/svc'),
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
  SANDBOX_PORT: port.default(3100),
  // How the service reaches the sandbox provider's API (default: 127.0.0.1 on SANDBOX_PORT).
  SANDBOX_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  // Where customers' browsers reach the sandbox's payment pages (default: SANDBOX_URL).
  SANDBOX_PUBLIC_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  // The sandbox's test credentials: shared by the sandbox and the service like a real provider's
  // API key and callback signing secret. Outside production they default to published values.
  SANDBOX_API_KEY: z.string().min(8).optional(),
  SANDBOX_CALLBACK_SECRET: z.string().min(16).optional(),
  // The sandbox provider (its adapter here, its process, its test helpers) runs only when this is true.
  SANDBOX_ENABLED: booleanFlag.default(false),
  TRUST_PROXY: trustProxy.default([]),
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  // A simple order the provider left in `processing` this long has failed (its late money is flagged).
  PROCESSING_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  AMOUNT_MIN_MAJOR: z.coerce.number().int().min(1).default(1),
  AMOUNT_MAX_MAJOR: z.coerce.number().int().min(1).default(1_000_000),
  ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  // Bearer token for GET /metrics; without it /metrics answers 404 in production (open elsewhere).
  METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  // The worker serves the Temporal SDK's Prometheus metrics on this port (off when unset).
  WORKER_METRICS_PORT: port.optional(),
  // pretty: pino-pretty's lines for a terminal (`npm start` sets it); json: one JSON object a line.
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Mail (the dashboard's verification and notices) goes out through this SMTP server
  // (smtp:// or smtps://, user and password in the URL). `npm start` and the tests run a local sink.
  SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().trim().min(3).max(200).default('svc checkout <no-reply@localhost>'),
  // Development only: the folder the local SMTP sink writes its mail to, shown at /dashboard/dev/mail.
  DEV_MAILBOX_DIR: z.string().min(1).optional(),
  // How long the dashboard's audit log keeps a row (who did what, when, from where); the API's sweep
  // removes older ones. 400 days: a year of history, with a month to spare for a yearly review.
  DASHBOARD_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  // First retry after 30 s, doubling, at most 1 h apart, for 72 h. Tests shorten them.
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.1).default(30),
  WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: z.coerce.number().min(0.1).default(3600),
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce.number().min(0.001).default(72),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  // How long an API process trusts a key it authenticated (ttl-cache.ts); 0 reads it on every request.
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  // Requests one API key may make per second (each API process counts its own); Stripe's live mode allows 100.
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).max(10_000).default(100),
  // Orders the key-less simple API opens per client address a minute, counted in Postgres across processes.
  SIMPLE_API_ORDERS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(60),
  // An event stream ends after this long; its client reconnects with Last-Event-ID and misses nothing.
  EVENT_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  // The platform's keys (treasury, deposit addresses). Never logged.
  SETTLEMENT_MNEMONIC: z
    .string()
    .transform((v) => v.normalize('NFKD').trim().split(/\s+/).join(' '))
    .refine(isValidMnemonic, { message: 'must be a BIP-39 English mnemonic (12 to 24 words, valid checksum)' })
    .optional(),
  // Only `npm start` reads it (its local anvil); listed so that it is documented and checked like the rest.
  CHAIN_DEV_PORT: port.default(8545),
  ALLOW_UNVERIFIED_NETWORKS: booleanFlag.default(false),
  PROVIDER_PROOF_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(3600),
  // How long a payout the chain refuses is retried before it fails
  // for an operator (activities/payout-failures.ts says why a minute). At least 5 s: a node's lagging
  // view passes within seconds.
  PAYOUT_REFUSAL_WINDOW_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  // Money reaches merchants in settlement runs (docs/settlement.md): completions credit balances,
  // deposits are swept by the network's sweeper, one payout per merchant and asset. A run per
  // network this often: it sweeps, then pays what is available.
  PAYOUT_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  // Deposits one sweep transaction takes at most: its gas grows with each, and a block has a limit.
  SWEEP_BATCH_SIZE: z.coerce.number().int().min(1).max(200).default(50),
  // How long a completed payment's share stays pending before it can be paid out: a
  // window for chargebacks of the fiat leg or disputes. 0: available at completion. At most 90 days.
  PAYOUT_HOLD_SECONDS: z.coerce.number().int().min(0).max(7_776_000).default(0),
  // How long the deposit address of an ended session stays watched, so money that
  // still arrives becomes a late (or duplicate) exception. 7 days: longer than a slow bank transfer
  // behind an on-ramp or a customer's retry from their wallet history.
  LATE_DEPOSIT_WATCH_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 365)
    .default(168),
  // How long after it was credited a log (and after it was confirmed a payout) is
  // re-checked against the chain, for a reorg deeper than the confirmations. By time, not blocks, so
  // one value fits every network. 24 hours: far past the deepest reorgs seen on the supported
  // networks (minutes on Polygon, Ethereum final after about 13 minutes) and past the hours an L2's
  // batch may wait for L1 before it is final; each pass reads at most a few hundred receipts per
  // network in batched requests. 0 turns the re-check off.
  REORG_WATCH_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 30)
    .default(24),
  // Below this (micro units of the token that arrived) a transfer to an ended
  // payment, or of a token other than the payment's, is recorded and nothing more. 10,000 = 0.01 of a
  // 6-decimal stablecoin: less than any supported network charges in gas to send it back, and the
  // size of the address-poisoning transfers anyone can send to any address for free.
  DUST_THRESHOLD_MICRO: z.coerce.bigint().min(0n).default(10_000n),
  // A simple order's payout costs the treasury gas: it has the network's sweeper forward the
  // customer's part from the order's deposit address, and a settlement run later sweeps what is left
  // there into the treasury (nothing is ever sent to a deposit for gas). The order pays it back as a
  // flat fee per network, in the stablecoin, deducted from its payout: the fee stays at the deposit
  // until that sweep takes it to the treasury. Defaults cover the gas with room for a tenfold fee
  // spike: cents on the L2s and Polygon, dollars on Ethereum.
  SIMPLE_ORDER_NETWORK_FEES: networkFees.prefault(DEFAULT_NETWORK_FEES),
  // The smallest simple order taken, in USD; an order must also be worth twice its network's fee, so
  // the fee never takes more than half of what the customer bought.
  SIMPLE_ORDER_MIN_USD: microAmount.prefault('1.00'),
});

// Each EVM network is configured on its own through CHAIN_<NETWORK>_*; one without an RPC URL has no
// chain verifier. Token addresses must carry their EIP-55 checksum: a mistyped contract address would
// make the watcher wait for transfers that can never come.
const evmAddress = z.string().refine(isEvmAddress, { message: 'must be an EIP-55 checksummed address' });

const chainSchema = z.object({
  RPC_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  CHAIN_ID: z.coerce.number().int().min(1).optional(),
  USDC: evmAddress.optional(),
  USDT: evmAddress.optional(),
  // The network's deposit sweeper (contracts/DepositSweeper.sol, docs/settlement.md): every deposit
  // address is one of its forwarders, and only it moves their money. Required with RPC_URL.
  SWEEPER: evmAddress.optional(),
  CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).optional(),
});
const CHAIN_SUFFIXES = Object.keys(chainSchema.shape);
const chainPrefix = (network: EvmNetwork) => `CHAIN_${network.toUpperCase()}_`;

/** Chain ids of the public networks; the dev chain (anvil) is 31337 and needs one confirmation. */
const MAINNET_CHAIN_IDS: Readonly<Record<EvmNetwork, number>> = { ethereum: 1, polygon: 137, base: 8453, arbitrum: 42161 };
const DEFAULT_CONFIRMATIONS: Readonly<Record<EvmNetwork, number>> = { ethereum: 12, polygon: 30, base: 10, arbitrum: 10 };
const DEV_CHAIN_ID = 31337;

export type Env = z.input<typeof envSchema>;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  http: {
    port: number;
    host: string;
    /** What customers and merchants see: checkout URLs, redirects, callback URLs given to providers. */
    publicBaseUrl: string;
    /** How the deployment's own processes reach the service (default: publicBaseUrl). */
    serviceUrl: string;
    bodyLimitBytes: number;
    trustProxy: string[];
    /** Authenticated keys are kept this long per process (0: off); admin writes empty the cache at once. */
    apiKeyCacheMs: number;
    /** Requests per second one API key may make, per API process. */
    rateLimitPerSecond: number;
    /** Simple-API orders one client address may open a minute. */
    simpleOrdersPerMinute: number;
    /** How long a merchant's event stream stays open at most. */
    eventStreamMaxSeconds: number;
  };
  /** token: null means /metrics is open outside production and absent in production. */
  metrics: { token: string | null; workerPort: number | null };
  databaseUrl: string;
  databasePoolMax: number;
  /** payoutConcurrency: payouts one worker process sends at once, on the payouts' own task queue. */
  temporal: { address: string; namespace: string; taskQueue: string; payoutConcurrency: number };
  adminToken: string;
  secretsKey: Buffer;
  /** The payment providers this deployment may route to, each with its own settings. */
  providers: {
    /** apiKey and callbackSecret are empty only when the sandbox is disabled in production. */
    /** url: how the service reaches its API; publicUrl: what customers' browsers are sent to. */
    sandbox: { enabled: boolean; port: number; url: string; publicUrl: string; apiKey: string; callbackSecret: string };
  };
  checkout: { sessionTtlSeconds: number; processingTimeoutSeconds: number; amountMinMajor: number; amountMaxMajor: number };
  simpleOrders: SimpleOrderSettings;
  allowPrivateUrls: boolean;
  webhooks: WebhookSettings;
  chains: ChainSettings;
  logLevel: string;
  logPretty: boolean;
  /** smtpUrl null: no mail can be sent (the dashboard's sign-up answers 503). devMailboxDir: development only. */
  mail: { smtpUrl: string | null; from: string; devMailboxDir: string | null };
  /** auditRetentionDays: the dashboard's audit rows older than this are purged by the API's sweep. */
  dashboard: { auditRetentionDays: number };
}

/** What a simple order's payout costs the customer (micro units of the stablecoin / of USD). */
export interface SimpleOrderSettings {
  networkFeeMicro: Readonly<Record<EvmNetwork, bigint>>;
  minUsdMicro: bigint;
}

export interface ChainSettings {
  /** Only the networks with an RPC URL: each has a chain verifier. */
  networks: ChainNetworkConfig[];
  settlementMnemonic: string | null;
  devPort: number;
  allowUnverifiedNetworks: boolean;
  providerProofTimeoutSeconds: number;
  /** PAYOUT_REFUSAL_WINDOW_SECONDS: a refused payout fails once its activity has been retried this long (and 5 times). */
  payoutRefusalWindowSeconds: number;
  lateDepositWatchHours: number;
  /** REORG_WATCH_HOURS: credits and payouts re-checked this long after confirmation (0: never). */
  reorgWatchHours: number;
  /** DUST_THRESHOLD_MICRO (zero-value transfers are dust whatever it says). */
  dustThresholdMicro: bigint;
  settlement: SettlementSettings;
}

export interface SettlementSettings {
  /** PAYOUT_INTERVAL_SECONDS: a settlement run per network this often. */
  intervalSeconds: number;
  /** SWEEP_BATCH_SIZE: deposits per sweep transaction. */
  sweepBatchSize: number;
  /** PAYOUT_HOLD_SECONDS: a completed payment's share is pending this long. */
  holdSeconds: number;
}

export interface ChainNetworkConfig {
  network: EvmNetwork;
  rpcUrl: string;
  chainId: number;
  confirmations: number;
  tokens: { USDC: Address | null; USDT: Address | null };
  /** CHAIN_<NETWORK>_SWEEPER: the factory and owner-only mover of this network's deposit forwarders. */
  sweeper: Address;
  /**
   * Where this network's transaction pages are (`<base>/<hash>`) when it is not the
   * public explorer: on the local dev chain (chain id 31337) the sandbox's own page, or null (no
   * explorer) without the sandbox. Unset: the network's public explorer.
   */
  explorerTxBase?: string | null;
}

/** Every configured token contract, on every network (money sent to one is lost). */
export const tokenContractsOf = (chains: Pick<ChainSettings, 'networks'>): Address[] =>
  chains.networks.flatMap((n) => [n.tokens.USDC, n.tokens.USDT]).filter((t): t is Address => t !== null);

export interface WebhookSettings {
  retryBaseSeconds: number;
  retryMaxIntervalSeconds: number;
  retryWindowHours: number;
  timeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super('Invalid configuration:\n' + issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n'));
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset, as compose files and shells often pass VAR= for "no value".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
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
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, '');
  const sandboxUrl = (e.SANDBOX_URL ?? `http://127.0.0.1:${e.SANDBOX_PORT}`).replace(/\/+$/, '');
  const sandboxPublicUrl = (e.SANDBOX_PUBLIC_URL ?? sandboxUrl).replace(/\/+$/, '');
  const devDefault = (name: string) => (e.NODE_ENV === 'production' ? '' : (DEVELOPMENT_DEFAULTS[name] ?? ''));
  return {
    nodeEnv: e.NODE_ENV,
    http: {
      port: e.PORT,
      host: e.HOST,
      publicBaseUrl,
      serviceUrl: (e.SERVICE_URL ?? publicBaseUrl).replace(/\/+$/, ''),
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      trustProxy: e.TRUST_PROXY,
      apiKeyCacheMs: e.API_KEY_CACHE_SECONDS * 1000,
      rateLimitPerSecond: e.API_RATE_LIMIT_PER_SECOND,
      simpleOrdersPerMinute: e.SIMPLE_API_ORDERS_PER_MINUTE,
      eventStreamMaxSeconds: e.EVENT_STREAM_MAX_SECONDS,
    },
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
    providers: {
      sandbox: {
        enabled: e.SANDBOX_ENABLED,
        port: e.SANDBOX_PORT,
        url: sandboxUrl,
        publicUrl: sandboxPublicUrl,
        apiKey: e.SANDBOX_API_KEY ?? devDefault('SANDBOX_API_KEY'),
        callbackSecret: e.SANDBOX_CALLBACK_SECRET ?? devDefault('SANDBOX_CALLBACK_SECRET'),
      },
    },
    checkout: {
      sessionTtlSeconds: e.SESSION_TTL_SECONDS,
      processingTimeoutSeconds: e.PROCESSING_TIMEOUT_SECONDS,
      amountMinMajor: e.AMOUNT_MIN_MAJOR,
      amountMaxMajor: e.AMOUNT_MAX_MAJOR,
    },
    simpleOrders: { networkFeeMicro: e.SIMPLE_ORDER_NETWORK_FEES, minUsdMicro: e.SIMPLE_ORDER_MIN_USD },
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    webhooks: {
      retryBaseSeconds: e.WEBHOOK_RETRY_BASE_SECONDS,
      retryMaxIntervalSeconds: e.WEBHOOK_RETRY_MAX_INTERVAL_SECONDS,
      retryWindowHours: e.WEBHOOK_RETRY_WINDOW_HOURS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    chains: {
      networks: chainNetworks.networks.map((n) =>
        n.chainId === DEV_CHAIN_ID ? { ...n, explorerTxBase: e.SANDBOX_ENABLED ? `${sandboxPublicUrl}/explorer/tx` : null } : n,
      ),
      settlementMnemonic: mnemonic,
      devPort: e.CHAIN_DEV_PORT,
      allowUnverifiedNetworks: e.ALLOW_UNVERIFIED_NETWORKS,
      providerProofTimeoutSeconds: e.PROVIDER_PROOF_TIMEOUT_SECONDS,
      payoutRefusalWindowSeconds: e.PAYOUT_REFUSAL_WINDOW_SECONDS,
      lateDepositWatchHours: e.LATE_DEPOSIT_WATCH_HOURS,
      reorgWatchHours: e.REORG_WATCH_HOURS,
      dustThresholdMicro: e.DUST_THRESHOLD_MICRO,
      settlement: {
        intervalSeconds: e.PAYOUT_INTERVAL_SECONDS,
        sweepBatchSize: e.SWEEP_BATCH_SIZE,
        holdSeconds: e.PAYOUT_HOLD_SECONDS,
      },
    },
    logLevel: e.LOG_LEVEL,
    logPretty: e.LOG_FORMAT === 'pretty',
    mail: {
      smtpUrl: e.SMTP_URL ?? null,
      from: e.MAIL_FROM,
      devMailboxDir: e.NODE_ENV === 'production' ? null : (e.DEV_MAILBOX_DIR ?? null),
    },
    dashboard: { auditRetentionDays: e.DASHBOARD_AUDIT_RETENTION_DAYS },
  };
}

/** Names of every variable the config reads; the compose test checks services against it. */
export const configVariables = [
  ...Object.keys(envSchema.shape),
  ...EVM_NETWORKS.flatMap((n) => CHAIN_SUFFIXES.map((suffix) => chainPrefix(n) + suffix)),
];

type Issue = { variable: string; message: string };

function issuesOf(issues: z.core.$ZodIssue[], prefix = ''): Issue[] {
  return issues.map((i) => ({
    variable: prefix + String(i.path[0] ?? '(env)'),
    message: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
  }));
}

function parseChainNetworks(env: Record<string, string | undefined>): { networks: ChainNetworkConfig[]; issues: Issue[] } {
  const networks: ChainNetworkConfig[] = [];
  const issues: Issue[] = [];
  for (const network of EVM_NETWORKS) {
    const prefix = chainPrefix(network);
    const own = Object.fromEntries(CHAIN_SUFFIXES.map((suffix) => [suffix, env[prefix + suffix]]));
    const parsed = chainSchema.safeParse(own);
    if (!parsed.success) {
      issues.push(...issuesOf(parsed.error.issues, prefix));
      continue;
    }
    const c = parsed.data;
    if (!c.RPC_URL) continue;
    if (!c.USDC && !c.USDT) {
      issues.push({ variable: `${prefix}RPC_URL`, message: `is set, but neither ${prefix}USDC nor ${prefix}USDT is` });
      continue;
    }
    if (!c.SWEEPER) {
      issues.push({
        variable: `${prefix}SWEEPER`,
        message: `is required with ${prefix}RPC_URL: the deposit sweeper the treasury owns; \`npm run ops -- deploy-sweeper --network ${network}\` deploys it and prints the address (docs/settlement.md)`,
      });
      continue;
    }
    const chainId = c.CHAIN_ID ?? MAINNET_CHAIN_IDS[network];
    networks.push({
      network,
      rpcUrl: c.RPC_URL,
      chainId,
      confirmations: c.CONFIRMATIONS ?? (chainId === DEV_CHAIN_ID ? 1 : DEFAULT_CONFIRMATIONS[network]),
      tokens: { USDC: c.USDC ?? null, USDT: c.USDT ?? null },
      sweeper: c.SWEEPER,
    });
  }
  return { networks, issues };
}

/** What `npm run ops -- deploy-sweeper` needs of one network: no database, no service, no admin token. */
export interface SweeperDeploymentConfig {
  network: EvmNetwork;
  rpcUrl: string;
  chainId: number;
  /** Its treasury owns the sweeper and pays for the deployment. Never printed. */
  settlementMnemonic: string;
  /** CHAIN_<NETWORK>_SWEEPER when set: the sweeper an earlier run deployed, checked rather than replaced. */
  sweeper: Address | null;
}

/**
 * The operator's sweeper deployment reads the variables the service will read, through the same
 * schemas, so that what it checks and prints is what the service then accepts.
 */
export function loadSweeperDeploymentConfig(env: Record<string, string | undefined>, network: EvmNetwork): SweeperDeploymentConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const prefix = chainPrefix(network);
  const mnemonic = envSchema.shape.SETTLEMENT_MNEMONIC.safeParse(present.SETTLEMENT_MNEMONIC);
  const chain = chainSchema
    .pick({ RPC_URL: true, CHAIN_ID: true, SWEEPER: true })
    .safeParse({ RPC_URL: present[`${prefix}RPC_URL`], CHAIN_ID: present[`${prefix}CHAIN_ID`], SWEEPER: present[`${prefix}SWEEPER`] });
  const issues: Issue[] = [
    ...(mnemonic.success ? [] : mnemonic.error.issues.map((i) => ({ variable: 'SETTLEMENT_MNEMONIC', message: i.message }))),
    ...(mnemonic.success && mnemonic.data === undefined
      ? [{ variable: 'SETTLEMENT_MNEMONIC', message: 'is required: its treasury owns the sweeper and pays for the deployment' }]
      : []),
    ...(chain.success ? [] : issuesOf(chain.error.issues, prefix)),
    ...(chain.success && chain.data.RPC_URL === undefined
      ? [{ variable: `${prefix}RPC_URL`, message: `is required: the ${network} node the deployment is sent through` }]
      : []),
  ];
  if (!mnemonic.success || !mnemonic.data || !chain.success || !chain.data.RPC_URL) throw new ConfigError(issues);
  const chainId = chain.data.CHAIN_ID ?? MAINNET_CHAIN_IDS[network];
  // The published phrase's treasury key is public: anyone could sweep the deposits of a sweeper it
  // owns. The dev chain is the only place it belongs.
  if (DEVELOPMENT_VALUES.SETTLEMENT_MNEMONIC!.includes(mnemonic.data) && chainId !== DEV_CHAIN_ID) {
    throw new ConfigError([
      {
        variable: 'SETTLEMENT_MNEMONIC',
        message: `is the published development phrase, whose keys anyone can use; it owns sweepers on the dev chain (${prefix}CHAIN_ID=${DEV_CHAIN_ID}) only`,
      },
    ]);
  }
  return { network, rpcUrl: chain.data.RPC_URL, chainId, settlementMnemonic: mnemonic.data, sweeper: chain.data.SWEEPER ?? null };
}

/**
 * Production never runs on a published value. The sandbox's credentials have no
 * default there, so an enabled sandbox needs its own; lengths of ADMIN_TOKEN and SECRETS_KEY are
 * checked by the schema in every mode.
 */
function productionIssues(nodeEnv: string, present: Record<string, string | undefined>, sandboxEnabled: boolean) {
  if (nodeEnv !== 'production') return [];
  const issues: { variable: string; message: string }[] = [];
  for (const [variable, values] of Object.entries(DEVELOPMENT_VALUES)) {
    const value = present[variable];
    if (value !== undefined && values.includes(value)) {
      issues.push({ variable, message: 'is a published development value; NODE_ENV=production needs a secret of your own' });
    }
  }
  if (present.DEV_MAILBOX_DIR !== undefined) {
    issues.push({ variable: 'DEV_MAILBOX_DIR', message: 'is the local mail sink of development; production sends mail through SMTP_URL' });
  }
  if (present.SMTP_URL !== undefined && present.MAIL_FROM === undefined) {
    issues.push({ variable: 'MAIL_FROM', message: 'is required with SMTP_URL in production (the default names localhost)' });
  }
  if (sandboxEnabled) {
    for (const variable of ['SANDBOX_API_KEY', 'SANDBOX_CALLBACK_SECRET']) {
      if (present[variable] === undefined) issues.push({ variable, message: 'is required with SANDBOX_ENABLED=true in production' });
    }
  }
  return issues;
}

function isAddressOrCidr(value: string): boolean {
  return ipaddr.isValid(value) || ipaddr.isValidCIDR(value);
}

function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : null;
}

// `npm run temporal:server` (scripts/temporal-server.ts): the production Temporal server on this
// host's Postgres. Its own small schema: it needs none of the service's secrets.
const temporalServerSchema = z.object({
  TEMPORAL_SERVER_POSTGRES_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432'),
  TEMPORAL_SERVER_DATABASE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lowercase SQL name')
    .default('temporal'),
  TEMPORAL_SERVER_PORT: port.default(7233),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  SVC_DATA_DIR: z.string().min(1).optional(),
});

export interface TemporalServerConfig {
  /** Role, host and port; the databases are `database` and `database`_visibility. */
  postgresUrl: string;
  database: string;
  port: number;
  namespace: string;
  dataDir: string | null;
}

export function loadTemporalServerConfig(env: Record<string, string | undefined>): TemporalServerConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = temporalServerSchema.safeParse(present);
  if (!parsed.success) throw new ConfigError(issuesOf(parsed.error.issues));
  const e = parsed.data;
  return {
    postgresUrl: e.TEMPORAL_SERVER_POSTGRES_URL,
    database: e.TEMPORAL_SERVER_DATABASE,
    port: e.TEMPORAL_SERVER_PORT,
    namespace: e.TEMPORAL_NAMESPACE,
    dataDir: e.SVC_DATA_DIR ?? null,
  };
}
