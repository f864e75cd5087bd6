import { describe, expect, it } from 'vitest';
import { MAX_SIGN_IN_FAILURES_PER_ACCOUNT, MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE } from '../../src/api/plugins/rate-limit';
import { DashboardClient, PASSWORD, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// Wrong passwords for one account are counted across client addresses too: a guesser with many
// addresses is stopped by the account's own bound, and the account's person is told, once a window,
// through the mail outbox.
describe('dashboard sign-in limit per account, whatever the address', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  const notices = (to: string) =>
    ctx.db.sql`select title, body from customer_mails where kind = 'notice' and to_address = ${to} and title like '%trying to sign in%'`;
  const pausedLines = (email: string) =>
    ctx.db.sql`select actor_email, ip, details from dashboard_audit_log where action = 'sign_in.paused' and actor_email = ${email}`;
  const signIn = (ip: string, email: string, password: string) =>
    new DashboardClient(ctx.app, ip).call('POST', '/sign-in', { email, password });

  it('answers 429 past the bound from fresh addresses, and mails the person one notice', async () => {
    await signedUpOwner(ctx.app, mailbox, 'guessed@example.com');
    // Two guesses from each of many addresses: none reaches its per-address limit of five.
    let guesses = 0;
    for (let address = 1; guesses < MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE; address++) {
      const guesser = new DashboardClient(ctx.app, `198.51.100.${address}`);
      for (let i = 0; i < 2 && guesses < MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE; i++, guesses++) {
        const res = await guesser.call('POST', '/sign-in', { email: 'guessed@example.com', password: `guess ${guesses}` });
        expect(res.statusCode, `guess ${guesses}`).toBe(401);
      }
    }
    expect(await notices('guessed@example.com')).toHaveLength(1);

    // From an address never seen, even the right password: 429, saying nothing.
    for (const ip of ['192.0.2.201', '192.0.2.202']) {
      const res = await new DashboardClient(ctx.app, ip).call('POST', '/sign-in', { email: 'Guessed@example.com', password: PASSWORD });
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ ok: false, error: 'RateLimited' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Still one notice in the window, however many more tries.
    const [notice, ...more] = await notices('guessed@example.com');
    expect(more).toEqual([]);
    expect(notice!.body).toContain('198.51.100.');
    expect(notice!.body).not.toContain('guess ');
    // And one line in the merchant's audit log, naming the account and the latest guesser's address.
    const lines = await pausedLines('guessed@example.com');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ ip: expect.stringMatching(/^198\.51\.100\./), details: { reason: 'failed_sign_ins' } });

    // Another account is not affected.
    await signedUpOwner(ctx.app, mailbox, 'bystander@example.com');
    expect(await notices('bystander@example.com')).toEqual([]);
    expect(await pausedLines('bystander@example.com')).toEqual([]);
  });

  it('mails no one for an address without an account, and limits it the same way', async () => {
    for (let i = 0; i < MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE; i++) {
      const res = await new DashboardClient(ctx.app, `198.51.101.${i + 1}`).call('POST', '/sign-in', {
        email: 'ghost@example.com',
        password: `guess ${i}`,
      });
      expect(res.statusCode).toBe(401);
    }
    const res = await new DashboardClient(ctx.app, '198.51.101.200').call('POST', '/sign-in', {
      email: 'ghost@example.com',
      password: 'x',
    });
    expect(res.statusCode).toBe(429);
    expect(await ctx.db.sql`select 1 from customer_mails where to_address = 'ghost@example.com'`).toEqual([]);
  });

  it('lifts the pause for the person who resets their password through the mailed link', async () => {
    await signedUpOwner(ctx.app, mailbox, 'locked-out@example.com');
    // Half the guesses from the person's own address (reaching its own limit there), half from elsewhere.
    const own = '192.0.2.50';
    for (let i = 0; i < MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE; i++) {
      const ip = i < MAX_SIGN_IN_FAILURES_PER_ACCOUNT ? own : `198.51.104.${i + 1}`;
      expect((await signIn(ip, 'locked-out@example.com', `guess ${i}`)).statusCode).toBe(401);
    }
    expect((await signIn(own, 'locked-out@example.com', PASSWORD)).statusCode).toBe(429);

    expect((await new DashboardClient(ctx.app, own).call('POST', '/forgot-password', { email: 'locked-out@example.com' })).statusCode).toBe(
      202,
    );
    const mail = await mailbox.waitFor('locked-out@example.com', /Reset your dashboard password/);
    const token = /reset-password\?token=([A-Za-z0-9]+)/.exec(mail.text)![1]!;
    const fresh = 'a new password, long enough';
    const reset = await new DashboardClient(ctx.app, own).call('POST', '/reset-password', { token, password: fresh });
    expect(reset.statusCode, reset.body).toBe(200);

    // In at once, from their own address too; the old password stays refused.
    expect((await signIn(own, 'locked-out@example.com', fresh)).statusCode).toBe(200);
    expect((await signIn('198.51.104.200', 'locked-out@example.com', PASSWORD)).statusCode).toBe(401);
  });

  it('counts every address of one IPv6 /64 as one client address', async () => {
    await signedUpOwner(ctx.app, mailbox, 'six@example.com');
    for (let i = 0; i < MAX_SIGN_IN_FAILURES_PER_ACCOUNT; i++) {
      expect((await signIn(`2001:db8:9:9::${i + 1}`, 'six@example.com', `guess ${i}`)).statusCode).toBe(401);
    }
    expect((await signIn('2001:db8:9:9:ffff::1', 'six@example.com', PASSWORD)).statusCode).toBe(429);
    // Under the account's own bound, another /64 still signs in.
    expect((await signIn('2001:db8:9:a::1', 'six@example.com', PASSWORD)).statusCode).toBe(200);
  });
});
