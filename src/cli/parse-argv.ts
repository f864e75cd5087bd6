import { parseArgs } from 'node:util';
import { CommandInput, UsageError, type Command, type OptionSpec } from './command';

export const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface GlobalFlags {
  url: string | undefined;
  token: string | undefined;
  json: boolean;
}

export type ParsedCommandLine = { kind: 'help' } | { kind: 'run'; command: Command; input: CommandInput; flags: GlobalFlags };

export function parseCommandLine(argv: string[], commands: readonly Command[]): ParsedCommandLine {
  // First pass, lenient, only to find the command words: every option any command knows is
  // declared so that option values are not mistaken for words, whatever the order on the line.
  const loose = parseArgs({ args: argv, options: { ...allOptions(commands), ...GLOBAL_OPTIONS }, strict: false, allowPositionals: true });
  if (loose.values.help === true || loose.positionals[0] === 'help') return { kind: 'help' };

  const command = commands.find((c) => startsWith(loose.positionals, c.name.split(' ')));
  if (!command) {
    const given = loose.positionals.slice(0, 2).join(' ');
    throw new UsageError(given ? `unknown command: ${given}` : 'no command given');
  }

  // Second pass, strict, with only this command's options: typos and misplaced flags are errors.
  let parsed: ReturnType<typeof parseStrict>;
  try {
    parsed = parseStrict(argv, command.options);
  } catch (err) {
    throw new UsageError((err as Error).message, command);
  }
  const words = command.name.split(' ').length;
  const rest = parsed.positionals.slice(words);
  if (rest.length > command.args.length) throw new UsageError(`unexpected argument: ${rest[command.args.length]}`, command);
  const positionals = Object.fromEntries(command.args.flatMap((name, i) => (rest[i] === undefined ? [] : [[name, rest[i]]])));
  const { url, token, json, help: _help, ...values } = parsed.values;
  return {
    kind: 'run',
    command,
    input: new CommandInput(command, positionals, values),
    flags: { url: asString(url), token: asString(token), json: json === true },
  };
}

function parseStrict(argv: string[], options: Record<string, OptionSpec>) {
  return parseArgs({ args: argv, options: { ...options, ...GLOBAL_OPTIONS }, strict: true, allowPositionals: true });
}

function allOptions(commands: readonly Command[]): Record<string, OptionSpec> {
  return Object.assign({}, ...commands.map((c) => c.options)) as Record<string, OptionSpec>;
}

function startsWith(positionals: string[], words: string[]): boolean {
  return words.every((w, i) => positionals[i] === w);
}

const asString = (v: unknown) => (typeof v === 'string' ? v : undefined);
