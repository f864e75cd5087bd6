import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The local SMTP sink's mailbox (tools/dev/mail-sink.ts writes one JSON file a message), read by
// the development mailbox page (/dashboard/dev/mail) and by tests. Never used in production.

export interface DevMail {
  id: string;
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | null;
}

const MAIL_FILE = /^\d{13}-[a-z0-9]+\.json$/;

/** The newest `limit` messages, newest first. */
export function readDevMailbox(dir: string, limit = 100): DevMail[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => MAIL_FILE.test(f))
    .sort()
    .reverse()
    .slice(0, limit)
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as DevMail);
}

export const devMailFileName = (receivedAt: Date, id: string) => `${receivedAt.getTime()}-${id}.json`;
