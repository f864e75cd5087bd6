import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createCustomerMailSender } from '../../src/activities/customer-mails';
import { createMailer } from '../../src/mail/mailer';
import { approve, signedUpOwner } from '../support/dashboard';
import { freePort } from '../support/free-port';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { useMailSink } from '../support/mail';

// The dashboard's notices (here the approval's) are written to the mail outbox in the
// change's transaction and sent by the worker's mail sender: the operator's answer never waits for
// SMTP, a refused mail is retried and then kept as failed, and a mail is sent once across senders.
describe('dashboard notices through the mail outbox', () => {
  const mailbox = useMailSink();
  // No sender runs by itself in this file: each test drives its own, for SMTP hanging, down, or back.
  const ctx = useTestApp(mailbox.env, { mailSender: false });
  const sender = (
    mailer: ReturnType<typeof createMailer>,
    options: { leaseSeconds?: number; retryBaseMs?: number; maxAttempts?: number } = {},
  ) => createCustomerMailSender({ db: ctx.db.db, mailer, messageHost: new URL(ctx.config.http.publicBaseUrl).hostname, ...options });
  const outbox = (merchantId: string) =>
    ctx.db.sql<{ status: string; attempts: number; lastError: string | null; to: string }[]>`
      select status, attempts, last_error as "lastError", to_address as "to" from customer_mails where merchant_id = ${merchantId}`;
  const approvalMails = (to: string) => mailbox.messages().filter((m) => m.to.includes(to) && /is approved/.test(m.subject));
  const deadSmtp = async () => createMailer({ smtpUrl: `smtp://127.0.0.1:${await freePort()}`, from: ctx.config.mail.from });

  it('answers the approval at once while SMTP hangs; another sender sends the mail, once', async () => {
    const { merchantId } = await signedUpOwner(ctx.app, mailbox, 'hung@example.com', 'Hung Shop');
    // An SMTP server that takes the connection and never greets.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hungMailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
      from: ctx.config.mail.from,
    });

    const started = Date.now();
    const key = await approve(ctx.app, merchantId);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(key).toMatch(/^svc_live_/);
    expect(await outbox(merchantId)).toMatchObject([{ status: 'pending', attempts: 0, to: 'hung@example.com' }]);

    // A sender takes the mail and waits on the silent server (it stands for a sender that dies there).
    const stuckPass = sender(hungMailer).sendDue();
    await eventually(
      () => outbox(merchantId),
      (rows) => rows[0]?.status === 'sending',
      5000,
      'the mail claimed',
    );
    expect(approvalMails('hung@example.com')).toEqual([]);

    // Past the claim's lease (0 s here), another sender takes it over and sends it.
    expect(await sender(createMailer(ctx.config.mail), { leaseSeconds: 0 }).sendDue()).toBe(1);
    const mail = await mailbox.waitFor('hung@example.com', /Hung Shop is approved/);
    expect(mail.text).not.toContain(key);

    // The silent server drops the line: the stuck send fails late, and the sent mail stays sent.
    for (const socket of sockets) socket.destroy();
    silent.close();
    expect(await stuckPass).toBe(0);
    hungMailer.close();
    expect(await outbox(merchantId)).toMatchObject([{ status: 'sent', attempts: 2 }]);

    // A sender started again finds nothing more to send.
    expect(await sender(createMailer(ctx.config.mail), { leaseSeconds: 0 }).sendDue()).toBe(0);
    expect(approvalMails('hung@example.com')).toHaveLength(1);
  });

  it('keeps the mail while SMTP is down and sends it once SMTP is back', async () => {
    const { merchantId } = await signedUpOwner(ctx.app, mailbox, 'down@example.com', 'Down Shop');
    await approve(ctx.app, merchantId);
    const dead = await deadSmtp();
    expect(await sender(dead, { retryBaseMs: 1 }).sendDue()).toBe(0);
    dead.close();
    const [row] = await outbox(merchantId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row!.lastError).toMatch(/ECONNREFUSED/);

    // SMTP is back: the next pass after the (1 ms) wait sends it.
    const back = sender(createMailer(ctx.config.mail));
    await eventually(
      () => back.sendDue(),
      (sent) => sent === 1,
      5000,
      'the retried mail sent',
    );
    await mailbox.waitFor('down@example.com', /Down Shop is approved/);
    expect(await outbox(merchantId)).toMatchObject([{ status: 'sent', attempts: 2, lastError: null }]);
    expect(await back.sendDue()).toBe(0);
    expect(approvalMails('down@example.com')).toHaveLength(1);
  });

  it('fails the mail for good after the last attempt, with its error kept for an operator', async () => {
    const { merchantId } = await signedUpOwner(ctx.app, mailbox, 'never@example.com', 'Never Shop');
    await approve(ctx.app, merchantId);
    const dead = await deadSmtp();
    const down = sender(dead, { retryBaseMs: 1, maxAttempts: 2 });
    await eventually(
      async () => {
        await down.sendDue();
        return outbox(merchantId);
      },
      (rows) => rows[0]?.status === 'failed',
      5000,
      'the mail failed for good',
    );
    dead.close();
    const [row] = await outbox(merchantId);
    expect(row).toMatchObject({ status: 'failed', attempts: 2 });
    expect(row!.lastError).toMatch(/ECONNREFUSED/);
    // Failed is final: SMTP back, no sender sends it.
    expect(await sender(createMailer(ctx.config.mail)).sendDue()).toBe(0);
    expect(approvalMails('never@example.com')).toEqual([]);
  });
});
