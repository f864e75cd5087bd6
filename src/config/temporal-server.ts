import { z } from 'zod';
import { ConfigError, issuesOf, port, postgresUrl, presentOf } from './parse';

// `npm run temporal:server` (scripts/temporal-server.ts): the production Temporal server on this
// host's Postgres. Its own small schema: it needs none of the service's secrets.
const temporalServerSchema = z.object({
  TEMPORAL_SERVER_POSTGRES_URL: postgresUrl.default('postgres://postgres@127.0.0.1:5432'),
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
  const present = presentOf(env);
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
