import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
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

function readTokenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SettingsError(`no admin token: pass --token, set ADMIN_TOKEN, or run \`npm start\` once so that it writes ${file}`);
    }
    throw err;
  }
}

/** Flag, then environment, then default; the token file is read only when nothing else gives one. */
export function resolveSettings(flags: { apiUrl?: string | undefined; token?: string | undefined }, env: Env): Settings {
  const apiUrl = flags.apiUrl ?? present(env.SVC_URL) ?? `http://127.0.0.1:${present(env.PORT) ?? 3000}`;
  const token = flags.token ?? present(env.ADMIN_TOKEN) ?? readTokenFile(tokenFilePath(env));
  const parsed = settingsSchema.safeParse({ apiUrl, token });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path[0] === 'apiUrl' ? '--api-url/SVC_URL' : '--token/ADMIN_TOKEN'} ${i.message}`);
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
