import { z } from 'zod';

// What every area of the config parses with: its variable types, and how a failure names its variable.

export const booleanFlag = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

export const port = z.coerce.number().int().min(1).max(65535);

export const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

export const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL');

export type Issue = { variable: string; message: string };

export class ConfigError extends Error {
  constructor(readonly issues: Issue[]) {
    super('Invalid configuration:\n' + issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/** The variables that are set: empty strings count as unset, as compose files and shells often pass VAR= for "no value". */
export const presentOf = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));

export function issuesOf(issues: z.core.$ZodIssue[], prefix = ''): Issue[] {
  return issues.map((i) => ({
    variable: prefix + String(i.path[0] ?? '(env)'),
    message: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
  }));
}
