import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startMailSink, type MailSink } from '../../tools/dev/mail-sink';
import { readDevMailbox, type DevMail } from '../../src/mail/dev-mailbox';

export interface TestMailbox {
  /** SMTP_URL and DEV_MAILBOX_DIR, filled in before the app of useTestApp(env) is built: call this first. */
  env: Record<string, string>;
  messages(): DevMail[];
  /** The newest message to `to`, waited for (the sink writes it as the SMTP session ends). */
  waitFor(to: string, subject?: RegExp): Promise<DevMail>;
}

/** A local SMTP sink (the one `npm start` runs) for one test file, in a folder of its own. */
/** `env`: the overrides object to fill (the one given to useTestApp, which other helpers may fill too). */
export function useMailSink(env: Record<string, string> = {}): TestMailbox {
  let sink: MailSink | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-mail-'));
  beforeAll(async () => {
    sink = await startMailSink({ dir });
    Object.assign(env, { SMTP_URL: sink.url, DEV_MAILBOX_DIR: dir });
  });
  afterAll(async () => {
    await sink?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const messages = () => readDevMailbox(dir);
  return {
    env,
    messages,
    async waitFor(to, subject) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = messages().find((m) => m.to.includes(to) && (!subject || subject.test(m.subject)));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} arrived in the sink`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
