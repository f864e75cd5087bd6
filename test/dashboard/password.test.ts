import { describe, expect, it } from 'vitest';
import { DashboardClient, enrolTwoFactor, PASSWORD, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// A forgotten password reset by a one-time mailed link (hashed at rest, expiring, spent by
// a POST), the signed-in person's password change, and what both leave behind: the person's other
// sessions ended and a security notice in their mailbox.
describe('dashboard passwords', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  const resetToken = (text: string) => /\/dashboard\/reset-password\?token=([A-Za-z0-9]+)/.exec(text)![1]!;
  const mailsTo = (to: string, subject: RegExp) => mailbox.messages().filter((m) => m.to.includes(to) && subject.test(m.subject));

  it('resets a forgotten password through a one-time link: every session ends, a notice is mailed', async () => {
    const { client: laptop } = await signedUpOwner(ctx.app, mailbox, 'forgetful@example.com');
    const phone = new DashboardClient(ctx.app, '198.51.100.21');
    expect((await phone.call('POST', '/sign-in', { email: 'forgetful@example.com', password: PASSWORD })).statusCode).toBe(200);

    const visitor = new DashboardClient(ctx.app, '198.51.100.22');
    const forgot = await visitor.call('POST', '/forgot-password', { email: 'Forgetful@Example.com' });
    expect(forgot.statusCode).toBe(202);
    expect(forgot.json()).toEqual({ ok: true });
    const mail = await mailbox.waitFor('forgetful@example.com', /Reset your dashboard password/);
    expect(mail.text).toContain(`${ctx.config.http.publicBaseUrl}/dashboard/reset-password?token=`);
    const token = resetToken(mail.text);
    // Stored as a hash only, for an hour.
    const rows = await ctx.db
      .sql`select t.token_hash, extract(epoch from t.expires_at - now())::float8 / 60 as minutes from dashboard_email_tokens t
      join dashboard_users u on u.id = t.user_id where u.email = 'forgetful@example.com' and t.purpose = 'reset_password'`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toBe(token);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const minutes = Number(rows[0]!.minutes);
    expect(minutes).toBeGreaterThan(59);
    expect(minutes).toBeLessThanOrEqual(60);

    // The link's page is a GET of the app that spends nothing; the POST does.
    expect((await ctx.app.inject({ method: 'GET', url: `/dashboard/reset-password?token=${token}` })).statusCode).toBe(200);
    expect((await visitor.call('POST', '/reset-password', { token, password: 'short' })).statusCode).toBe(422);
    const reset = await visitor.call('POST', '/reset-password', { token, password: 'a brand new password 7' });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ ok: true });
    // Once only.
    const again = await visitor.call('POST', '/reset-password', { token, password: 'yet another password 8' });
    expect(again.statusCode).toBe(422);
    expect(again.json()).toMatchObject({ ok: false, error: 'ValidationError', message: expect.stringMatching(/expired or was used/) });

    // Every session of the person ended; the new password signs in, the old one no longer.
    expect((await laptop.call('GET', '/me')).statusCode).toBe(401);
    expect((await phone.call('GET', '/me')).statusCode).toBe(401);
    const user = await ctx.db.sql`select password_hash from dashboard_users where email = 'forgetful@example.com'`;
    expect(user[0]!.password_hash).toMatch(/^\$argon2id\$/);
    expect((await visitor.call('POST', '/sign-in', { email: 'forgetful@example.com', password: PASSWORD })).statusCode).toBe(401);
    expect(
      (await visitor.call('POST', '/sign-in', { email: 'forgetful@example.com', password: 'a brand new password 7' })).statusCode,
    ).toBe(200);
    const notice = await mailbox.waitFor('forgetful@example.com', /password was changed/);
    expect(notice.text).toContain('reset through the link mailed to you');
    expect(notice.text).toContain('198.51.100.22');

    const audit = await laptop.call('POST', '/sign-in', { email: 'forgetful@example.com', password: 'a brand new password 7' });
    expect(audit.statusCode).toBe(200);
    const actions = (await laptop.call('GET', '/audit-log')).json().entries.map((e: { action: string }) => e.action);
    expect(actions).toContain('password.reset');
  });

  it('answers "forgot" alike for an unknown address, and mails no one', async () => {
    const visitor = new DashboardClient(ctx.app, '198.51.100.23');
    const unknown = await visitor.call('POST', '/forgot-password', { email: 'nobody-here@example.com' });
    expect(unknown.statusCode).toBe(202);
    expect(unknown.json()).toEqual({ ok: true });
    // A known address's mail is sent after its answer: wait for one, then none came for the unknown.
    await signedUpOwner(ctx.app, mailbox, 'known@example.com');
    await visitor.call('POST', '/forgot-password', { email: 'known@example.com' });
    await mailbox.waitFor('known@example.com', /Reset your dashboard password/);
    expect(mailbox.messages().filter((m) => m.to.includes('nobody-here@example.com'))).toEqual([]);
    const tokens = await ctx.db.sql`select count(*)::int as n from dashboard_email_tokens where purpose = 'reset_password'
      and user_id not in (select id from dashboard_users)`;
    expect(tokens[0]!.n).toBe(0);
  });

  it('limits "forgot" like sign-in: every request counts, found or not, per address and per client', async () => {
    await signedUpOwner(ctx.app, mailbox, 'spammed@example.com');
    const spammer = new DashboardClient(ctx.app, '198.51.100.30');
    for (let i = 0; i < 5; i++)
      expect((await spammer.call('POST', '/forgot-password', { email: 'spammed@example.com' })).statusCode).toBe(202);
    const limited = await spammer.call('POST', '/forgot-password', { email: 'spammed@example.com' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ ok: false, error: 'RateLimited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // An unknown address is limited the same way: the 429 tells nothing either.
    for (let i = 0; i < 5; i++) await spammer.call('POST', '/forgot-password', { email: 'ghost@example.com' });
    expect((await spammer.call('POST', '/forgot-password', { email: 'ghost@example.com' })).statusCode).toBe(429);
    // Five mails, no more.
    await mailbox.waitFor('spammed@example.com', /Reset your dashboard password/);
    await expect.poll(() => mailsTo('spammed@example.com', /Reset your dashboard password/).length).toBe(5);
    // Sign-in is counted apart: the person still signs in from there.
    expect((await spammer.call('POST', '/sign-in', { email: 'spammed@example.com', password: PASSWORD })).statusCode).toBe(200);
  });

  it('refuses an expired link, and the earlier links once one was used', async () => {
    await signedUpOwner(ctx.app, mailbox, 'links@example.com');
    const visitor = new DashboardClient(ctx.app, '198.51.100.31');
    await visitor.call('POST', '/forgot-password', { email: 'links@example.com' });
    const first = resetToken((await mailbox.waitFor('links@example.com', /Reset your/)).text);
    await visitor.call('POST', '/forgot-password', { email: 'links@example.com' });
    await expect.poll(() => mailsTo('links@example.com', /Reset your/).length).toBe(2);
    const second = mailsTo('links@example.com', /Reset your/)
      .map((m) => resetToken(m.text))
      .find((t) => t !== first)!;
    await visitor.call('POST', '/forgot-password', { email: 'links@example.com' });
    await expect.poll(() => mailsTo('links@example.com', /Reset your/).length).toBe(3);
    const third = mailsTo('links@example.com', /Reset your/)
      .map((m) => resetToken(m.text))
      .find((t) => t !== first && t !== second)!;
    await ctx.db.sql`update dashboard_email_tokens set expires_at = now() - interval '1 second'
      where purpose = 'reset_password' and user_id = (select id from dashboard_users where email = 'links@example.com')
      and token_hash = encode(sha256(convert_to(${first}, 'UTF8')), 'hex')`;
    expect((await visitor.call('POST', '/reset-password', { token: first, password: 'a brand new password 9' })).statusCode).toBe(422);
    expect((await visitor.call('POST', '/reset-password', { token: second, password: 'a brand new password 9' })).statusCode).toBe(200);
    expect((await visitor.call('POST', '/reset-password', { token: third, password: 'another new password 10' })).statusCode).toBe(422);
    expect((await visitor.call('POST', '/sign-in', { email: 'links@example.com', password: 'a brand new password 9' })).statusCode).toBe(
      200,
    );
  });

  it('keeps the second factor after a reset: the next sign-in still asks for its code', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'twofa-reset@example.com');
    const { app } = await enrolTwoFactor(client, ctx.clock);
    const visitor = new DashboardClient(ctx.app, '198.51.100.32');
    await visitor.call('POST', '/forgot-password', { email: 'twofa-reset@example.com' });
    const token = resetToken((await mailbox.waitFor('twofa-reset@example.com', /Reset your/)).text);
    expect((await visitor.call('POST', '/reset-password', { token, password: 'a brand new password 11' })).statusCode).toBe(200);
    const noCode = await visitor.call('POST', '/sign-in', { email: 'twofa-reset@example.com', password: 'a brand new password 11' });
    expect(noCode.statusCode).toBe(403);
    const withCode = await visitor.call('POST', '/sign-in', {
      email: 'twofa-reset@example.com',
      password: 'a brand new password 11',
      code: await app.code(),
    });
    expect(withCode.statusCode).toBe(200);
  });

  it('changes a signed-in person’s password with the current one: other sessions end, this one stays', async () => {
    const { client: laptop } = await signedUpOwner(ctx.app, mailbox, 'changer@example.com');
    const phone = new DashboardClient(ctx.app, '198.51.100.33');
    expect((await phone.call('POST', '/sign-in', { email: 'changer@example.com', password: PASSWORD })).statusCode).toBe(200);
    const { client: someoneElse } = await signedUpOwner(ctx.app, mailbox, 'bystander@example.com');

    const wrong = await laptop.call('POST', '/password', { currentPassword: 'not my password', newPassword: 'a changed password 12' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ ok: false, error: 'Unauthorized' });
    expect((await laptop.call('POST', '/password', { currentPassword: PASSWORD, newPassword: 'short' })).statusCode).toBe(422);
    // Neither the current password nor a step-up: refused.
    expect((await laptop.call('POST', '/password', { newPassword: 'a changed password 12' })).statusCode).toBe(403);
    expect(
      (await laptop.call('POST', '/password', { currentPassword: PASSWORD, newPassword: 'a changed password 12' }, { csrf: null }))
        .statusCode,
    ).toBe(403);
    expect((await phone.call('GET', '/me')).statusCode).toBe(200);

    const changed = await laptop.call('POST', '/password', { currentPassword: PASSWORD, newPassword: 'a changed password 12' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ ok: true, sessionsEnded: 1 });
    expect((await laptop.call('GET', '/me')).statusCode).toBe(200);
    expect((await phone.call('GET', '/me')).statusCode).toBe(401);
    expect((await someoneElse.call('GET', '/me')).statusCode).toBe(200);
    const notice = await mailbox.waitFor('changer@example.com', /password was changed/);
    expect(notice.text).toContain('changed in the dashboard');
    expect((await phone.call('POST', '/sign-in', { email: 'changer@example.com', password: PASSWORD })).statusCode).toBe(401);
    expect((await phone.call('POST', '/sign-in', { email: 'changer@example.com', password: 'a changed password 12' })).statusCode).toBe(
      200,
    );
    const actions = (await laptop.call('GET', '/audit-log')).json().entries.map((e: { action: string }) => e.action);
    expect(actions).toContain('password.changed');

    // A recent step-up stands in for the current password.
    const viaStepUp = await laptop.call('POST', '/step-up', { password: 'a changed password 12' });
    expect(viaStepUp.statusCode).toBe(200);
    const again = await laptop.call('POST', '/password', { newPassword: 'a third password 13' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ok: true, sessionsEnded: 1 });
    expect((await phone.call('GET', '/me')).statusCode).toBe(401);
  });

  it('counts wrong current passwords against the sign-in limits', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'guesser@example.com');
    for (let i = 0; i < 5; i++) {
      expect(
        (await client.call('POST', '/password', { currentPassword: `guess ${i}`, newPassword: 'a changed password 14' })).statusCode,
      ).toBe(401);
    }
    expect((await client.call('POST', '/password', { currentPassword: PASSWORD, newPassword: 'a changed password 14' })).statusCode).toBe(
      429,
    );
  });
});
