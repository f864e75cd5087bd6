import type { z } from 'zod';
import type { AdminClient, ApiRequest } from './admin-client';

// What one ops command is: a row of the tables under commands/. Adding a command is adding a row;
// parsing, help, suggestions and exit codes come from commander (program.ts), HTTP and errors from
// admin-client.ts, --json from ops.ts.

export interface OptionDef {
  /** Commander's flags, e.g. `--name <name>`; the value is read back camel-cased (`--commission-bps` → commissionBps). */
  flags: string;
  description: string;
  required?: boolean;
  /**
   * Turns the text into the value request() reads, or throws commander's InvalidArgumentError so the
   * mistake is a usage error (exit 2) naming the option. `previous` lets an option repeat.
   */
  parse?: (value: string, previous: unknown) => unknown;
  defaultValue?: unknown;
}

export interface ArgDef {
  name: string;
  description: string;
}

/** A command's parsed positionals (by name) and options (camel-cased), already validated by their parsers. */
export interface CommandInput {
  args: Record<string, string>;
  options: Record<string, unknown>;
}

/** What a command may use besides its input; passed in so that tests control time. */
export interface RunContext {
  call: AdminClient;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

export interface OpsCommand {
  /** The words that select it, e.g. `merchants create`. */
  name: string;
  args: ArgDef[];
  options: OptionDef[];
  summary: string;
  execute: (input: CommandInput, ctx: RunContext) => Promise<unknown>;
  /** Human-readable lines for a successful answer. */
  render: (body: unknown) => string[];
  /** The exit status an answer means (default 0): `reconcile` exits 1 when it found differences. */
  exitCode?: (body: unknown) => number;
}

interface CommonSpec<S extends z.ZodType> {
  name: string;
  args?: ArgDef[];
  options?: OptionDef[];
  summary: string;
  /** The fields of the answer that render reads; the rest passes through untouched. */
  response: S;
  render: (body: z.output<S>) => string[];
  exitCode?: (body: z.output<S>) => number;
}

export type CommandSpec<S extends z.ZodType> = CommonSpec<S> &
  (
    | { /** One admin API call. */ request: (input: CommandInput) => ApiRequest }
    | { /** Several calls (polling); returns the answer to render. */ execute: (input: CommandInput, ctx: RunContext) => Promise<unknown> }
  );

export function defineCommand<S extends z.ZodType>(spec: CommandSpec<S>): OpsCommand {
  const execute = 'request' in spec ? (input: CommandInput, ctx: RunContext) => ctx.call(spec.request(input)) : spec.execute;
  return {
    name: spec.name,
    args: spec.args ?? [],
    options: spec.options ?? [],
    summary: spec.summary,
    execute,
    render: (body) => {
      const parsed = spec.response.safeParse(body);
      // An answer of a newer or older API shape is still shown in full rather than lost.
      return parsed.success ? spec.render(parsed.data) : [JSON.stringify(body, null, 2)];
    },
    ...(spec.exitCode
      ? {
          exitCode: (body: unknown) => {
            const parsed = spec.response.safeParse(body);
            return parsed.success ? spec.exitCode!(parsed.data) : 1;
          },
        }
      : {}),
  };
}

/** `merchants create --name <name> [--commission-bps <bps>]`, for the command list in the main help. */
export function synopsis(command: OpsCommand): string {
  const options = command.options.map((o) => (o.required ? o.flags : `[${o.flags}]`));
  return [command.name, ...command.args.map((a) => `<${a.name}>`), ...options].join(' ');
}

// Typed reads of parsed input: the parsers above guarantee the shapes, these only narrow the types.
export const arg = (input: CommandInput, name: string): string => input.args[name]!;
export const text = (input: CommandInput, key: string): string | undefined => {
  const v = input.options[key];
  return typeof v === 'string' ? v : undefined;
};
export const value = <T>(input: CommandInput, key: string): T | undefined => input.options[key] as T | undefined;
