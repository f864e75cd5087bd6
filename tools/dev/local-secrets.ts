import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

// `npm start` must run with no setup, yet a restart has to keep the same admin token (the ops CLI
// reads it from the file) and the same secrets key (webhook secrets encrypted under it must stay
// readable). So each is generated once and kept in the data directory, readable by its owner only.

export interface LocalSecret {
  value: string;
  file: string;
  created: boolean;
  /** Set when an existing file can be read by other users. */
  warning?: string;
}

export const generateAdminToken = () => randomBytes(32).toString('base64url');
export const generateSecretsKey = () => randomBytes(32).toString('hex');

export function readOrCreateSecret(file: string, generate: () => string): LocalSecret {
  const existing = readIfPresent(file);
  if (existing) {
    const loose = (statSync(file).mode & 0o077) !== 0;
    return {
      value: existing,
      file,
      created: false,
      ...(loose ? { warning: `${file} can be read by other users: chmod 600 it` } : {}),
    };
  }
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  // The mode above applies only when the file is created; an empty file left behind keeps its own.
  chmodSync(file, 0o600);
  return { value, file, created: true };
}

function readIfPresent(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
