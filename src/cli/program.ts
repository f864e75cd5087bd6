import { Command, Option } from 'commander';
import { synopsis, type CommandInput, type OpsCommand } from './command';

// The command line, built with commander from the command tables: each command declares only its own
// options, so `webhooks add --url` cannot collide with the service address (`--api-url`, global).
// Commander gives per-command --help, "did you mean" for mistyped commands and options, and
// errors we map to exit 2 in ops.ts.

export const PROGRAM_NAME = 'npm run ops --';

export interface GlobalOptions {
  apiUrl?: string;
  tokenFile?: string;
  json?: boolean;
}

export interface ProgramIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Shown after the main help: where the token file is, exit statuses. */
  epilogue: string;
}

/** Runs when a command line parses: the command, its input and the global options. */
export type Dispatch = (command: OpsCommand, input: CommandInput, globals: GlobalOptions) => Promise<void>;

// Before this parser the service address was `--url`, which made `webhooks add --url` unusable; an
// operator's old habit gets pointed at the new name rather than a bare "unknown option".
const URL_HINT = "(the service address is --api-url or SVC_URL; --url is for 'webhooks add')";

// The admin token is never a flag (`npm run` prints the whole command line in its
// banner, the shell keeps it in its history, the process list shows it). A `--token` is refused, and
// the refusal never repeats what followed it (`--token=…` would carry the token into the message).
const TOKEN_FLAG_REFUSED =
  "error: there is no --token option: the admin token is read from ADMIN_TOKEN, else --token-file <path> or ADMIN_TOKEN_FILE, else $SVC_DATA_DIR/admin-token (a flag would show in npm's banner, the shell history and the process list)\n";

function outputError(text: string, write: (text: string) => void): void {
  if (/^error: unknown option '--token(?!-file)/.test(text)) write(TOKEN_FLAG_REFUSED);
  else write(text.startsWith("error: unknown option '--url") ? `${text.trimEnd()}\n${URL_HINT}\n` : text);
}

export function buildProgram(commands: readonly OpsCommand[], groups: Record<string, string>, io: ProgramIo, dispatch: Dispatch): Command {
  const program = new Command(PROGRAM_NAME)
    .description('Operate a running service through its admin API (/admin/v1); never touches the database.')
    // Settings made before any .command() are inherited by every subcommand.
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError })
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage)')
    .addOption(new Option('--api-url <url>', 'service base URL (env SVC_URL; default http://127.0.0.1:$PORT, PORT defaults to 3000)'))
    .addOption(
      new Option(
        '--token-file <path>',
        'read the admin token from this file (env ADMIN_TOKEN_FILE; default: env ADMIN_TOKEN, else $SVC_DATA_DIR/admin-token, SVC_DATA_DIR defaults to .data/)',
      ),
    )
    .option('--json', 'print the raw JSON answer instead of the summary');

  const groupCommands = new Map<string, Command>();
  for (const command of commands) {
    const [groupName, verb] = command.name.split(' ') as [string, string | undefined];
    let group = groupCommands.get(groupName);
    if (!group && verb !== undefined) {
      group = program.command(groupName).description(groups[groupName] ?? '');
      groupCommands.set(groupName, group);
    }
    // A one-word command (`reconcile`) is its own leaf.
    const leaf = (verb === undefined ? program.command(groupName) : group!.command(verb))
      .summary(command.summary)
      .description(command.summary)
      .usage(synopsis(command).slice(command.name.length + 1) || '[options]');
    for (const a of command.args) leaf.argument(`<${a.name}>`, a.description);
    const required: Option[] = [];
    for (const o of command.options) {
      const option = new Option(o.flags, o.required ? `${o.description} (required)` : o.description);
      if (o.parse) option.argParser(o.parse);
      if (o.defaultValue !== undefined) option.default(o.defaultValue);
      if (o.required) required.push(option);
      leaf.addOption(option);
    }
    leaf.action(async (...params: unknown[]) => {
      const self = params[params.length - 1] as Command;
      // Checked here rather than with makeOptionMandatory(): commander checks those before unknown
      // options, and `--scope` must get "did you mean --scopes?" rather than "--scopes is missing".
      const missing = required.find((o) => self.getOptionValue(o.attributeName()) === undefined);
      if (missing)
        self.error(`error: required option '${missing.flags}' not specified`, { exitCode: 2, code: 'ops.missingMandatoryOption' });
      const args = Object.fromEntries(command.args.map((a, i) => [a.name, String(self.processedArgs[i])]));
      await dispatch(command, { args, options: self.opts() }, self.optsWithGlobals<GlobalOptions>());
    });
  }

  program.addHelpText('after', () =>
    [
      '',
      'Every command (each is one call of the admin API, or a few for `payments wait`):',
      ...commands.map((c) => `  ${synopsis(c)}`),
      '',
      io.epilogue,
    ].join('\n'),
  );
  return program;
}
