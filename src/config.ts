import { z } from 'zod';

// The only module that reads environment variables: everything else receives the parsed Config.
// Names are the runtime contract of decisions §10; docker-compose.yml and the README use them verbatim.

const booleanFlag = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

const port = z.coerce.number().int().min(1).max(65535);

const secretsKey = z
  .string()
  .refine((v) => decodeKey(v) !== null, {
    message: 'must be 32 bytes, as 64 hex characters or base64',
  })
  .transform((v) => decodeKey(v) as Buffer);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/svc'),
  TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port').default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('checkout'),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters'),
  SECRETS_KEY: secretsKey,
  SANDBOX_PORT: port.default(3100),
  ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(64 * 1024),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  http: { port: number; host: string; publicBaseUrl: string; bodyLimitBytes: number };
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string };
  adminToken: string;
  secretsKey: Buffer;
  sandboxPort: number;
  allowPrivateUrls: boolean;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(
      'Invalid configuration:\n' + issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset, as compose files and shells often pass VAR= for "no value".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => ({
        variable: String(i.path[0] ?? '(env)'),
        message: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
      })),
    );
  }
  const e = parsed.data;
  return {
    nodeEnv: e.NODE_ENV,
    http: {
      port: e.PORT,
      host: e.HOST,
      publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, ''),
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
    },
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
    },
    adminToken: e.ADMIN_TOKEN,
    secretsKey: e.SECRETS_KEY,
    sandboxPort: e.SANDBOX_PORT,
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    logLevel: e.LOG_LEVEL,
  };
}

/** Names of every variable the config reads; the compose test checks services against it. */
export const configVariables = Object.keys(envSchema.shape);

function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : null;
}
