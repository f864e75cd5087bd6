import { ConfigError } from '../../src/config';
import type { LocalSecret } from './local-secrets';

// Small pieces of `npm start`'s own environment handling (scripts/start.ts), kept apart so that the
// script reads as the sequence of steps it runs.

/** A port variable only `npm start` reads, reported in the same form as the service's config errors. */
export function portVariable(env: Record<string, string>, variable: string, fallback: number): number {
  const value = env[variable];
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new ConfigError([{ variable, message: 'must be a port number' }]);
  return port;
}

/** A bad value read from a generated file is not one the user set: say where it came from. */
export function secretFileHints(err: ConfigError, sources: Record<string, LocalSecret | null>): string {
  return err.issues
    .map((i) => sources[i.variable])
    .filter((s): s is LocalSecret => !!s)
    .map((s) => `\n  (read from ${s.file}; delete the file to generate a new one)`)
    .join('');
}

export function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
