import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import { EVM_NETWORKS, type EvmNetwork } from '../domain/assets';
import { AdminApiError, ConnectionError, createAdminClient } from './admin-client';
import { COMMANDS, GROUPS } from './commands';
import { WaitTimeoutError } from './commands/payments';
import { deploySweeper, DeployRefused } from './deploy-sweeper';
import { buildProgram } from './program';
import { listen, StreamRefused } from './listen';
import { clearTextWarning, resolveApiKey, resolveApiUrl, resolveSettings, SettingsError, tokenFilePath, type Env } from './settings';

// The operators' CLI: `npm run ops -- <command>`. An HTTP client of the admin API (docs/operations.md),
// but for deploy-sweeper, which runs before there is a service to ask (deploy-sweeper.ts).

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface Io {
  env: Env;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Waits between polls (`payments wait`); tests may pass a faster one. */
  sleep?: (ms: number) => Promise<void>;
  /** Stops `listen` (default: Ctrl-C or SIGTERM). */
  signal?: AbortSignal;
  /** `listen`'s pauses between retries and reconnects (default 1000 ms); tests may pass a shorter one. */
  listenBackoffMs?: number;
}

function epilogue(env: Env): string {
  return [
    `Token: ADMIN_TOKEN, else --token-file or ADMIN_TOKEN_FILE, else ${tokenFilePath(env)} (its directory is SVC_DATA_DIR; \`npm start\` writes it).`,
    "listen (a merchant's command, not an operator's): API key from SVC_API_KEY, else --api-key-file or SVC_API_KEY_FILE; never the admin token.",
    'deploy-sweeper needs no service and no token: SETTLEMENT_MNEMONIC and CHAIN_<NETWORK>_RPC_URL from the environment; the treasury signs and pays.',
    'Exit status: 0 done; 1 the API or the chain refused, could not be reached, or a wait timed out; 2 bad usage or settings.',
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

  const httpUrl = (flag: string) => (value: string) => {
    const parsed = z.url({ protocol: /^https?$/ }).safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError(`${flag} must be an http(s) URL`);
    return parsed.data;
  };
  program
    .command('listen')
    .summary('forward your events to a local URL, signed with a secret printed at start (a merchant API key, not the admin token)')
    .description(
      'Reads GET /api/v1/events/stream with your merchant API key (scope transactions:read), signs each event with a new local secret, printed once, as the service signs its webhooks, and POSTs it to --forward-to. Reconnects after a dropped connection and resumes after the last event handled.',
    )
    .addOption(
      new Option('--forward-to <url>', 'your local webhook URL, e.g. http://localhost:8000/hooks').argParser(httpUrl('--forward-to')),
    )
    .option('--api-key-file <path>', 'read the merchant API key from this file (env SVC_API_KEY_FILE; default env SVC_API_KEY)')
    .addOption(
      new Option('--after <id>', 'resume after this event id (the number in [brackets] of a previous run)').argParser((v) => {
        if (!/^\d{1,15}$/.test(v)) throw new InvalidArgumentError('--after must be an event id (a number)');
        return Number(v);
      }),
    )
    .action(async (_options: unknown, self: Command) => {
      const opts = self.optsWithGlobals<{ forwardTo?: string; apiKeyFile?: string; after?: number; apiUrl?: string }>();
      if (opts.forwardTo === undefined) self.error("error: required option '--forward-to <url>' not specified", { exitCode: 2 });
      const apiKey = resolveApiKey(opts, io.env);
      const apiUrl = resolveApiUrl(opts, io.env);
      const warning = clearTextWarning(apiUrl);
      if (warning) err(warning.replace('the admin token', 'your API key'));
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      if (!io.signal) process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      try {
        await listen({
          apiUrl,
          apiKey,
          forwardTo: opts.forwardTo,
          ...(opts.after !== undefined ? { after: opts.after } : {}),
          print: out,
          signal: io.signal ?? stop.signal,
          ...(io.listenBackoffMs !== undefined ? { backoffMs: io.listenBackoffMs } : {}),
        });
      } finally {
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      }
    });

  program
    .command('deploy-sweeper')
    .usage('--network <network>')
    .summary("deploy a network's deposit sweeper, owned by the treasury, and print its CHAIN_<NETWORK>_SWEEPER line (no service needed)")
    .description(
      "Deploys contracts/DepositSweeper.sol on one network: sent, paid for and owned by the treasury of SETTLEMENT_MNEMONIC, through CHAIN_<NETWORK>_RPC_URL (and CHAIN_<NETWORK>_CHAIN_ID when not the network's mainnet), read from the environment as the service reads them. Waits for the receipt, checks owner(), and prints CHAIN_<NETWORK>_SWEEPER=0x… for the service's environment. With CHAIN_<NETWORK>_SWEEPER already set it checks that sweeper instead and deploys nothing.",
    )
    .addOption(new Option('--network <network>', 'the EVM network to deploy on').choices(EVM_NETWORKS))
    .action(async (_options: unknown, self: Command) => {
      const { network } = self.opts<{ network?: EvmNetwork }>();
      if (network === undefined) self.error("error: required option '--network <network>' not specified", { exitCode: 2 });
      await deploySweeper({ network, env: io.env, print: out });
    });

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
    if (e instanceof ConnectionError || e instanceof WaitTimeoutError || e instanceof StreamRefused || e instanceof DeployRefused) {
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
