import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { LIVE_KEY_PREFIX } from '../domain/credentials';
import { PROJECT_ROOT } from '../project-root';

// Where and as whom the CLI connects. Being an entry point's helper, it reads the environment it is
// handed rather than src/config.ts, which describes the service and would demand the service's secrets.

export type Env = Record<string, string | undefined>;

const settingsSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')),
  // Whitespace would corrupt the Authorization header; length rules are the server's business.
  token: z.string().regex(/^\S+$/, 'must be a single word with no spaces'),
});

export type Settings = z.output<typeof settingsSchema>;

/** The CLI cannot tell where or as whom to connect: exit 2 like a usage error. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

// Empty strings count as unset, as in src/config.ts: shells and compose files pass VAR= for "none".
const present = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

export function tokenFilePath(env: Env): string {
  return path.join(path.resolve(present(env.SVC_DATA_DIR) ?? path.join(PROJECT_ROOT, '.data')), 'admin-token');
}

function readTokenFile(file: string, named: boolean, what = 'admin token'): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (named && (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')) {
      throw new SettingsError(`cannot read the ${what} file ${file} (${code})`);
    }
    if (code === 'ENOENT') {
      throw new SettingsError(`no admin token: set ADMIN_TOKEN, pass --token-file, or run \`npm start\` once so that it writes ${file}`);
    }
    throw err;
  }
}

const defaultedApiUrl = (flags: { apiUrl?: string | undefined }, env: Env) =>
  flags.apiUrl ?? present(env.SVC_URL) ?? `http://127.0.0.1:${present(env.PORT) ?? 3000}`;

/** The service's address alone (`listen`, which authenticates with a merchant's key instead). */
export function resolveApiUrl(flags: { apiUrl?: string | undefined }, env: Env): string {
  const parsed = settingsSchema.shape.apiUrl.safeParse(defaultedApiUrl(flags, env));
  if (!parsed.success) throw new SettingsError(`invalid settings: --api-url/SVC_URL ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/**
 * Flag, then environment, then default; a token file is read only when nothing before it gives a
 * token. The token itself is never a flag: npm prints the command line in its banner
 * (`> tsx src/cli/ops.ts …`), and the shell history and the process list keep it.
 */
export function resolveSettings(flags: { apiUrl?: string | undefined; tokenFile?: string | undefined }, env: Env): Settings {
  const apiUrl = defaultedApiUrl(flags, env);
  const namedFile = flags.tokenFile ?? present(env.ADMIN_TOKEN_FILE);
  const token =
    (flags.tokenFile !== undefined ? readTokenFile(flags.tokenFile, true) : undefined) ??
    present(env.ADMIN_TOKEN) ??
    (namedFile !== undefined ? readTokenFile(namedFile, true) : readTokenFile(tokenFilePath(env), false));
  const parsed = settingsSchema.safeParse({ apiUrl, token });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path[0] === 'apiUrl' ? '--api-url/SVC_URL' : 'the admin token'} ${i.message}`);
    throw new SettingsError(`invalid settings: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/** Plain http beyond this machine would show the admin token to the network. */
export function clearTextWarning(apiUrl: string): string | null {
  const { protocol, hostname } = new URL(apiUrl);
  const loopback = hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
  return protocol === 'http:' && !loopback
    ? `warning: sending the admin token over plain http to ${hostname}; use https outside a trusted network`
    : null;
}

const apiKeySchema = z.string().regex(new RegExp(`^${LIVE_KEY_PREFIX}\\S+$`), `must be a merchant API key (${LIVE_KEY_PREFIX}…)`);

/**
 * The merchant's API key for `listen`: --api-key-file, else SVC_API_KEY, else SVC_API_KEY_FILE. There
 * is no flag carrying the key itself: npm prints a command's flags in its banner.
 */
export function resolveApiKey(flags: { apiKeyFile?: string | undefined }, env: Env): string {
  const file = flags.apiKeyFile ?? (present(env.SVC_API_KEY) === undefined ? present(env.SVC_API_KEY_FILE) : undefined);
  const key = file !== undefined ? readTokenFile(file, true, 'API key') : present(env.SVC_API_KEY);
  if (key === undefined) throw new SettingsError('no API key: set SVC_API_KEY, or pass --api-key-file <path> (or SVC_API_KEY_FILE)');
  const parsed = apiKeySchema.safeParse(key);
  // The message never repeats the key: a wrong one may still be somebody's secret.
  if (!parsed.success) throw new SettingsError(`invalid settings: the API key ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}
