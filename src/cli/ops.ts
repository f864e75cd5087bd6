import { CommanderError } from 'commander';
import { AdminApiError, ConnectionError, createAdminClient } from './admin-client';
import { COMMANDS, GROUPS } from './commands';
import { WaitTimeoutError } from './commands/payments';
import { buildProgram } from './program';
import { clearTextWarning, resolveSettings, SettingsError, TOKEN_FLAG_WARNING, tokenFilePath, type Env } from './settings';

// The operators' CLI: `npm run ops -- <command>`. An HTTP client of the admin API (decisions §10).

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface Io {
  env: Env;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Waits between polls (`payments wait`); tests may pass a faster one. */
  sleep?: (ms: number) => Promise<void>;
}

function epilogue(env: Env): string {
  return [
    `Token: ADMIN_TOKEN, else --token-file or ADMIN_TOKEN_FILE, else ${tokenFilePath(env)} (its directory is SVC_DATA_DIR; \`npm start\` writes it).`,
    'Exit status: 0 done; 1 the API refused, could not be reached, or a wait timed out; 2 bad usage or settings.',
  ].join('\n');
}

export async function run(argv: string[], io: Io): Promise<number> {
  const out = (text: string) => io.stdout(`${text}\n`);
  const err = (text: string) => io.stderr(`${text}\n`);
  let answered = EXIT_OK;
  const program = buildProgram(
    COMMANDS,
    GROUPS,
    { stdout: io.stdout, stderr: io.stderr, epilogue: epilogue(io.env) },
    async (command, input, globals) => {
      if (globals.token !== undefined) err(TOKEN_FLAG_WARNING);
      const settings = resolveSettings(globals, io.env);
      const warning = clearTextWarning(settings.apiUrl);
      if (warning) err(warning);
      const call = createAdminClient({ baseUrl: settings.apiUrl, token: settings.token });
      const sleep = io.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
      const body = await command.execute(input, { call, sleep, now: Date.now });
      out(globals.json ? JSON.stringify(body, null, 2) : command.render(body).join('\n'));
      answered = command.exitCode?.(body) ?? EXIT_OK;
    },
  );

  try {
    await program.parseAsync(argv, { from: 'user' });
    return answered;
  } catch (e) {
    // Commander has printed its message (with a suggestion where it has one); help exits 0.
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (e instanceof SettingsError) {
      err(`ops: ${e.message}`);
      return EXIT_USAGE;
    }
    if (e instanceof AdminApiError) {
      err(`error ${e.status} ${e.code}: ${e.message}${e.requestId ? ` (request ${e.requestId})` : ''}`);
      for (const d of e.details) err(`  ${d.path || '(body)'}: ${d.message}`);
      return EXIT_FAILED;
    }
    if (e instanceof ConnectionError || e instanceof WaitTimeoutError) {
      err(`error: ${e.message}`);
      return EXIT_FAILED;
    }
    err(`error: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_FAILED;
  }
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
