import { describe, expect, it } from 'vitest';
import { MAX_SIGN_UPS_PER_EMAIL, MAX_SIGN_UPS_PER_IP } from '../../src/api/plugins/rate-limit';
import { DashboardClient, PASSWORD, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// Sign-up mails whatever address the caller types: limited per client address and per email address
// (every request counts), and an address that already has an account hears of it once a window.
// Sign-up sends its mail before it answers (the SMTP sink has written it by then): once the answer is
// in, the sink holds every mail the request made, and a count read then is final.
describe('dashboard sign-up limits', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);
  const signUp = (ip: string, email: string) =>
    new DashboardClient(ctx.app, ip).call('POST', '/sign-up', { businessName: 'Spam Shop', email, password: PASSWORD });
  const mailsTo = (to: string, subject: RegExp) => mailbox.messages().filter((m) => m.to.includes(to) && subject.test(m.subject));

  it('limits sign-ups from one client address: 429 RateLimited with Retry-After, nothing made or mailed', async () => {
    for (let i = 0; i < MAX_SIGN_UPS_PER_IP; i++) expect((await signUp('198.51.100.5', `fresh${i}@example.com`)).statusCode).toBe(201);
    const refused = await signUp('198.51.100.5', 'one-too-many@example.com');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ ok: false, error: 'RateLimited', message: expect.any(String), requestId: expect.any(String) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(mailsTo('one-too-many@example.com', /./)).toEqual([]);
    expect(await ctx.db.sql`select 1 from dashboard_users where email = 'one-too-many@example.com'`).toEqual([]);
    // Another client address is not held up by it.
    expect((await signUp('198.51.100.6', 'elsewhere@example.com')).statusCode).toBe(201);
  });

  it('limits sign-ups of one email address from any number of client addresses', async () => {
    for (let i = 0; i < MAX_SIGN_UPS_PER_EMAIL; i++)
      expect((await signUp(`198.51.101.${i + 1}`, 'target@example.com')).statusCode).toBe(201);
    const refused = await signUp('198.51.101.99', 'Target@Example.com');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('RateLimited');
    // One verification, and one notice for the repeats however many there were.
    expect(mailsTo('target@example.com', /Confirm your email/)).toHaveLength(1);
    expect(mailsTo('target@example.com', /tried to sign up/)).toHaveLength(1);
  });

  it('counts every address of one IPv6 /64 as one client address', async () => {
    for (let i = 0; i < MAX_SIGN_UPS_PER_IP; i++)
      expect((await signUp(`2001:db8:5:6::${(i + 1).toString(16)}`, `six${i}@example.com`)).statusCode).toBe(201);
    const refused = await signUp('2001:db8:5:6:abcd:ef01:2345:6789', 'six-more@example.com');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('RateLimited');
    // The next /64 is another client.
    expect((await signUp('2001:db8:5:7::1', 'next-block@example.com')).statusCode).toBe(201);
  });

  it('counts name+tag@ as the inbox it reaches, name@', async () => {
    for (let i = 0; i < MAX_SIGN_UPS_PER_EMAIL; i++)
      expect((await signUp(`198.51.103.${i + 1}`, `inbox+${i}@example.com`)).statusCode).toBe(201);
    for (const [ip, email] of [
      ['198.51.103.98', 'inbox+another@example.com'],
      ['198.51.103.99', 'inbox@example.com'],
    ] as const) {
      const refused = await signUp(ip, email);
      expect(refused.statusCode, email).toBe(429);
    }
    expect(mailbox.messages().filter((m) => m.to.some((to) => /^inbox[+@]/.test(to)))).toHaveLength(MAX_SIGN_UPS_PER_EMAIL);
  });

  it('mails an existing account at most one notice a window, and answers each repeat alike', async () => {
    await signedUpOwner(ctx.app, mailbox, 'existing@example.com');
    for (const ip of ['198.51.102.1', '198.51.102.2']) {
      const res = await signUp(ip, 'existing@example.com');
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ ok: true });
    }
    await mailbox.waitFor('existing@example.com', /tried to sign up/);
    expect(mailsTo('existing@example.com', /tried to sign up/)).toHaveLength(1);
  });
});
