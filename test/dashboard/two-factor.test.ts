import { describe, expect, it } from 'vitest';
import { approve, Authenticator, DashboardClient, PASSWORD, enrolTwoFactor, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// A second factor (TOTP) for sign-in and step-up, required of owners before the actions
// that reveal keys or secrets; codes work once; recovery codes stand in for a lost phone.
// A code works once, and the server accepts one 30 s step either side of now: a test that needs more
// codes than that moves the API's clock on to the next step (Authenticator.code with ctx.clock).
describe('dashboard two-factor authentication', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('enrols with an otpauth URI, confirms with a code, and asks for a code at sign-in, once per code', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'totp@example.com');
    const enrol = await client.call('POST', '/two-factor/enroll');
    expect(enrol.statusCode).toBe(200);
    const { secret, uri, qrSvg } = enrol.json();
    expect(uri).toMatch(new RegExp(`^otpauth://totp/svc%20checkout:totp%40example\\.com\\?.*secret=${secret}`));
    expect(qrSvg).toMatch(/^<svg/);
    // Sealed at rest with SECRETS_KEY, not the secret itself.
    const [row] = await ctx.db.sql`select totp_secret_encrypted, totp_enabled_at from dashboard_users where email = 'totp@example.com'`;
    expect(row!.totp_secret_encrypted).toMatch(/^v1\./);
    expect(row!.totp_secret_encrypted).not.toContain(secret);
    expect(row!.totp_enabled_at).toBeNull();

    const app = new Authenticator(secret, ctx.clock);
    expect((await client.call('POST', '/two-factor/confirm', { code: '000000' })).statusCode).toBe(422);
    expect((await client.call('GET', '/me')).json().twoFactor).toBe(false);
    const confirm = await client.call('POST', '/two-factor/confirm', { code: await app.code() });
    expect(confirm.statusCode).toBe(200);
    const recoveryCodes: string[] = confirm.json().recoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect((await client.call('GET', '/me')).json().twoFactor).toBe(true);
    await mailbox.waitFor('totp@example.com', /Two-factor authentication is on/);
    const stored = await ctx.db.sql`select code_hash from dashboard_recovery_codes`;
    expect(stored.map((r) => r.code_hash)).not.toContain(recoveryCodes[0]);

    const fresh = new DashboardClient(ctx.app, '198.51.100.61');
    // The password alone: asked for the code, and not counted as a failure (six times, past the limit of five).
    for (let i = 0; i < 6; i++) {
      const res = await fresh.call('POST', '/sign-in', { email: 'totp@example.com', password: PASSWORD });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, error: 'Forbidden', details: [{ path: 'code' }] });
      expect(res.cookies.find((c) => c.name === 'svc_dash_session')).toBeUndefined();
    }
    const wrong = await fresh.call('POST', '/sign-in', { email: 'totp@example.com', password: PASSWORD, code: '123456' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('Unauthorized');
    const code = await app.code();
    expect((await fresh.call('POST', '/sign-in', { email: 'totp@example.com', password: PASSWORD, code })).statusCode).toBe(200);
    expect((await fresh.call('GET', '/me')).json().user.email).toBe('totp@example.com');
    // The same code again (a replay, from anywhere) is refused.
    const replay = await new DashboardClient(ctx.app, '198.51.100.62').call('POST', '/sign-in', {
      email: 'totp@example.com',
      password: PASSWORD,
      code,
    });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toMatch(/used already/);

    // The step-up asks for it too.
    const bare = await fresh.call('POST', '/step-up', { password: PASSWORD });
    expect(bare.statusCode).toBe(403);
    expect(bare.json()).toMatchObject({ error: 'Forbidden', details: [{ path: 'code' }] });
    expect((await fresh.call('POST', '/step-up', { password: PASSWORD, code: await app.code() })).statusCode).toBe(200);
    expect((await fresh.call('GET', '/me')).json().steppedUp).toBe(true);

    // A recovery code works once, in place of the app's.
    const lost = new DashboardClient(ctx.app, '198.51.100.63');
    const recovery = { email: 'totp@example.com', password: PASSWORD, code: recoveryCodes[3]!.toUpperCase() };
    expect((await lost.call('POST', '/sign-in', recovery)).statusCode).toBe(200);
    expect((await new DashboardClient(ctx.app, '198.51.100.64').call('POST', '/sign-in', recovery)).statusCode).toBe(401);
  });

  it('requires owners to have a second factor before a step-up action; turning it off asks for password and code', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'owner-2fa@example.com');
    await approve(ctx.app, merchantId);
    expect((await client.call('POST', '/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const refused = await client.call('POST', '/api-keys/live/reveal');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/two-factor/);

    const { app } = await enrolTwoFactor(client, ctx.clock);
    // Enrolment does not step up by itself: the password and a code do.
    expect((await client.call('POST', '/api-keys/live/reveal')).statusCode).toBe(403);
    expect((await client.call('POST', '/step-up', { password: PASSWORD, code: await app.code() })).statusCode).toBe(200);
    expect((await client.call('POST', '/api-keys/live/reveal')).statusCode).toBe(200);
    expect((await client.call('POST', '/two-factor/enroll')).statusCode).toBe(409);

    expect((await client.call('POST', '/two-factor/disable', { password: 'wrong password', code: '000000' })).statusCode).toBe(401);
    expect((await client.call('POST', '/two-factor/disable', { password: PASSWORD, code: '000000' })).statusCode).toBe(401);
    expect((await client.call('GET', '/me')).json().twoFactor).toBe(true);
    expect((await client.call('POST', '/two-factor/disable', { password: PASSWORD, code: await app.code() })).statusCode).toBe(200);
    expect((await client.call('GET', '/me')).json().twoFactor).toBe(false);
    await mailbox.waitFor('owner-2fa@example.com', /Two-factor authentication is off/);
    expect((await client.call('POST', '/api-keys/live/rotate')).statusCode).toBe(403);
    const [row] = await ctx.db.sql`select totp_secret_encrypted from dashboard_users where email = 'owner-2fa@example.com'`;
    expect(row!.totp_secret_encrypted).toBeNull();
    const codes = await ctx.db
      .sql`select count(*)::int as n from dashboard_recovery_codes c join dashboard_users u on u.id = c.user_id where u.email = 'owner-2fa@example.com'`;
    expect(codes[0]!.n).toBe(0);
  });
});
