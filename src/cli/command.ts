import type { z } from 'zod';
import type { ApiRequest } from './admin-client';

// What one ops command is: a row of the table in commands.ts. Adding a command is adding a row;
// argument parsing, help, HTTP, errors and --json are shared.

/** Bad invocation (unknown command, missing argument, malformed value): usage help and exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage line helps, if the command was recognised. */
    readonly command?: Command,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

type Value = string | boolean | (string | boolean)[] | undefined;

/** A command's positionals and options after parsing, with accessors that throw UsageError. */
export class CommandInput {
  constructor(
    readonly command: Command,
    private readonly positionals: Record<string, string>,
    private readonly values: Record<string, Value>,
  ) {}

  arg(name: string): string {
    const v = this.positionals[name];
    if (v === undefined) throw new UsageError(`missing <${name}>`, this.command);
    return v;
  }

  option(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  required(name: string): string {
    const v = this.option(name);
    if (v === undefined || v === '') throw new UsageError(`--${name} is required`, this.command);
    return v;
  }

  list(name: string): string[] {
    const v = this.values[name];
    if (v === undefined) return [];
    return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  fail(message: string): never {
    throw new UsageError(message, this.command);
  }
}

export interface Command {
  /** The words that select it, e.g. `merchants create`. */
  name: string;
  /** Positional arguments after the name, in order. */
  args: string[];
  options: Record<string, OptionSpec>;
  /** Option synopsis for help, e.g. `--name NAME [--commission-bps BPS]`. */
  synopsis: string;
  summary: string;
  request: (input: CommandInput) => ApiRequest;
  /** Human-readable lines for a successful answer. */
  render: (body: unknown) => string[];
}

export interface CommandSpec<S extends z.ZodType> {
  name: string;
  args?: string[];
  options?: Record<string, OptionSpec>;
  synopsis?: string;
  summary: string;
  request: (input: CommandInput) => ApiRequest;
  /** The fields of the answer that render reads; the rest passes through untouched. */
  response: S;
  render: (body: z.output<S>) => string[];
}

export function defineCommand<S extends z.ZodType>(spec: CommandSpec<S>): Command {
  return {
    name: spec.name,
    args: spec.args ?? [],
    options: spec.options ?? {},
    synopsis: spec.synopsis ?? '',
    summary: spec.summary,
    request: spec.request,
    render: (body) => {
      const parsed = spec.response.safeParse(body);
      // An answer of a newer or older API shape is still shown in full rather than lost.
      return parsed.success ? spec.render(parsed.data) : [JSON.stringify(body, null, 2)];
    },
  };
}

export function usageLine(command: Command): string {
  return [command.name, ...command.args.map((a) => `<${a}>`), command.synopsis].filter(Boolean).join(' ');
}
