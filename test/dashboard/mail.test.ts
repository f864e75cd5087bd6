import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createMailer, MailNotConfigured } from '../../src/mail/mailer';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

describe('mail through SMTP, into the local sink', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('sends over real SMTP from MAIL_FROM, text and HTML, and the sink keeps it', async () => {
    const mailer = createMailer(ctx.config.mail);
    await mailer.send('someone@example.com', 'Hello <there>', 'Open http://127.0.0.1/x?a=1&b=2 now.', '<p>Hello</p>');
    mailer.close();
    const mail = await mailbox.waitFor('someone@example.com');
    expect(mail).toMatchObject({ subject: 'Hello <there>', from: 'no-reply@localhost', html: '<p>Hello</p>' });
    expect(mail.text.trim()).toBe('Open http://127.0.0.1/x?a=1&b=2 now.');
  });

  it('shows the mailbox at /dashboard/dev/mail outside production, escaped, links clickable', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/dashboard/dev/mail' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('Hello &lt;there&gt;');
    expect(res.body).toContain('<a href="http://127.0.0.1/x?a=1&amp;b=2">');
  });

  it('refuses to send without SMTP_URL, and production has no mailbox', async () => {
    await expect(createMailer({ smtpUrl: null, from: 'x@y.z' }).send('a@b.c', 's', 't')).rejects.toBeInstanceOf(MailNotConfigured);
    const production = loadConfig({
      NODE_ENV: 'production',
      ADMIN_TOKEN: 'x'.repeat(32),
      SECRETS_KEY: 'a'.repeat(64),
      SMTP_URL: 'smtp://mail.example.com:587',
      MAIL_FROM: 'Shop <no-reply@example.com>',
    });
    expect(production.mail).toEqual({ smtpUrl: 'smtp://mail.example.com:587', from: 'Shop <no-reply@example.com>', devMailboxDir: null });
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: 'x'.repeat(32), SECRETS_KEY: 'a'.repeat(64), DEV_MAILBOX_DIR: '/tmp/m' }),
    ).toThrow(/DEV_MAILBOX_DIR/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: 'x'.repeat(32), SECRETS_KEY: 'a'.repeat(64), SMTP_URL: 'smtp://mail.example.com' }),
    ).toThrow(/MAIL_FROM/);
  });
});

describe('the mailbox page without a local sink (production)', () => {
  const ctx = useTestApp();
  it('is 404 without a local sink', async () => {
    expect(ctx.config.mail.devMailboxDir).toBeNull();
    const res = await ctx.app.inject({ method: 'GET', url: '/dashboard/dev/mail' });
    expect(res.statusCode).toBe(404);
  });
});
