import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AdminApiError, ConnectionError, createAdminClient } from './admin-client';
import { UsageError, usageLine } from './command';
import { COMMANDS } from './commands';
import { parseCommandLine, type GlobalFlags } from './parse-argv';

// The operators' CLI: `npm run ops -- <command>`. An HTTP client of the admin API (decisions §10).
// Being an entry point, it reads its own environment here rather than through src/config.ts,
// which describes the service and would demand the service's secrets.

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

const PROJECT_ROOT = path.resolve(__dirname, '../..');

type Env = Record<string, string | undefined>;

export interface Io {
  env: Env;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const settingsSchema = z.object({
  url: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .transform((u) => u.replace(/\/+$/, '')),
  // Whitespace would corrupt the Authorization header; length rules are the server's business.
  token: z.string().regex(/^\S+$/, 'must be a single word with no spaces'),
});

type Settings = z.output<typeof settingsSchema>;

/** The CLI cannot tell where or as whom to connect: exit 2 like a usage error, without the usage. */
class SettingsError extends Error {}

// Empty strings count as unset, as in src/config.ts: shells and compose files pass VAR= for "none".
const present = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

function tokenFilePath(env: Env): string {
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

export function resolveSettings(flags: GlobalFlags, env: Env): Settings {
  const url = flags.url ?? present(env.SVC_URL) ?? `http://127.0.0.1:${present(env.PORT) ?? 3000}`;
  const token = flags.token ?? present(env.ADMIN_TOKEN) ?? readTokenFile(tokenFilePath(env));
  const parsed = settingsSchema.safeParse({ url, token });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') === 'url' ? '--url/SVC_URL' : '--token/ADMIN_TOKEN'} ${i.message}`);
    throw new SettingsError(`invalid settings: ${problems.join('; ')}`);
  }
  return parsed.data;
}

export function usage(env: Env = {}): string {
  const lines = COMMANDS.flatMap((c) => [`  ${usageLine(c)}`, `      ${c.summary}`]);
  return [
    'Usage: npm run ops -- <command> [options]',
    '',
    'Commands (each is one call of the admin API, /admin/v1):',
    ...lines,
    '  help',
    '      Print this help.',
    '',
    'Options:',
    '  --url URL       service base URL (env SVC_URL; default http://127.0.0.1:$PORT, PORT defaults to 3000)',
    `  --token TOKEN   admin token (env ADMIN_TOKEN; default: the file ${tokenFilePath(env)}, set by SVC_DATA_DIR);`,
    '                  prefer the env or the file: a flag is visible to other users in the process list',
    '  --json          print the raw JSON answer instead of the summary',
    '  -h, --help      print this help',
    '',
    'Exit status: 0 done; 1 the API refused or could not be reached; 2 bad usage or settings.',
  ].join('\n');
}

export async function run(argv: string[], io: Io): Promise<number> {
  try {
    const parsed = parseCommandLine(argv, COMMANDS);
    if (parsed.kind === 'help') {
      line(io.stdout, usage(io.env));
      return EXIT_OK;
    }
    const request = parsed.command.request(parsed.input);
    const settings = resolveSettings(parsed.flags, io.env);
    warnIfTokenTravelsInClear(settings.url, io);
    const body = await createAdminClient({ baseUrl: settings.url, token: settings.token })(request);
    line(io.stdout, parsed.flags.json ? JSON.stringify(body, null, 2) : parsed.command.render(body).join('\n'));
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      line(io.stderr, `ops: ${err.command ? `${err.command.name}: ` : ''}${err.message}`);
      line(io.stderr, err.command ? `usage: npm run ops -- ${usageLine(err.command)}` : `\n${usage(io.env)}`);
      return EXIT_USAGE;
    }
    if (err instanceof SettingsError) {
      line(io.stderr, `ops: ${err.message}`);
      return EXIT_USAGE;
    }
    if (err instanceof AdminApiError) {
      const request = err.requestId ? ` (request ${err.requestId})` : '';
      line(io.stderr, `error ${err.status} ${err.code}: ${err.message}${request}`);
      for (const d of err.details) line(io.stderr, `  ${d.path || '(body)'}: ${d.message}`);
      return EXIT_FAILED;
    }
    if (err instanceof ConnectionError) {
      line(io.stderr, `error: ${err.message}`);
      return EXIT_FAILED;
    }
    line(io.stderr, `error: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_FAILED;
  }
}

function warnIfTokenTravelsInClear(url: string, io: Io): void {
  const { protocol, hostname } = new URL(url);
  const loopback = hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
  if (protocol === 'http:' && !loopback) {
    line(io.stderr, `warning: sending the admin token over plain http to ${hostname}; use https outside a trusted network`);
  }
}

function line(write: (t: string) => void, text: string): void {
  write(`${text}\n`);
}

if (require.main === module) {
  void run(process.argv.slice(2), {
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  }).then((code) => {
    // exitCode rather than exit(): output piped to another program is flushed first.
    process.exitCode = code;
  });
}
