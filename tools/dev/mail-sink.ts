import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { devMailFileName, type DevMail } from '../../src/mail/dev-mailbox';

// Under `npm start` and in tests the project runs its own SMTP server, which keeps
// every message it is given (nothing is relayed) as a file the development mailbox page shows. Real
// SMTP, so the mailer is the production code path, never a stub.

export interface MailSink {
  /** What SMTP_URL is set to. */
  url: string;
  dir: string;
  stop(): Promise<void>;
}

const addresses = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) => o.value.map((v) => v.address ?? '')).filter(Boolean);

export async function startMailSink(options: { dir: string; port?: number; host?: string }): Promise<MailSink> {
  const { dir, host = '127.0.0.1' } = options;
  mkdirSync(dir, { recursive: true });
  const server = new SMTPServer({
    // Local only: no TLS, no authentication, and messages up to 10 MB.
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    size: 10 * 1024 * 1024,
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const receivedAt = new Date();
          const id = randomBytes(8).toString('hex');
          const mail: DevMail = {
            id,
            receivedAt: receivedAt.toISOString(),
            from: addresses(parsed.from)[0] ?? '',
            to: addresses(parsed.to),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
          };
          // Written whole, then renamed: a reader never sees half a message.
          const file = path.join(dir, devMailFileName(receivedAt, id));
          writeFileSync(`${file}.tmp`, JSON.stringify(mail, null, 2));
          renameSync(`${file}.tmp`, file);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${host}:${port}`,
    dir,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
