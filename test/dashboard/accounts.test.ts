import { eventually } from '../support/http';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cookieOptions } from '../../src/api/dashboard/cookies';
import { dashboardUsers, merchants } from '../../src/db/schema';
import { approve, DashboardClient, PASSWORD, secureOwner, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// Sign-up → pending merchant, email verification, sign-in to a server-side session,
// CSRF on every write, sign-in limits, and the live key shown once after the operator's approval.
describe('dashboard accounts', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('signs up a pending merchant whose owner confirms the email address, then signs in', async () => {
    const client = new DashboardClient(ctx.app);
    const email = 'Owner@Example.com';
    const res = await client.call('POST', '/sign-up', { businessName: 'Corner Shop', email, password: PASSWORD });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ ok: true });

    const user = await ctx.db.db.query.dashboardUsers.findFirst({ where: eq(dashboardUsers.email, 'owner@example.com') });
    expect(user).toMatchObject({ role: 'owner', emailVerifiedAt: null });
    expect(user!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const merchant = await ctx.db.db.query.merchants.findFirst({ where: eq(merchants.id, user!.merchantId) });
    expect(merchant).toMatchObject({ name: 'Corner Shop', status: 'pending_review' });

    // Not before the address is confirmed: a new link goes out instead.
    const early = await client.call('POST', '/sign-in', { email, password: PASSWORD });
    expect(early.statusCode).toBe(403);
    expect(early.cookies.find((c) => c.name === 'svc_dash_session')).toBeUndefined();

    const mail = await mailbox.waitFor('owner@example.com', /Confirm your email/);
    const link = /(http\S+\/dashboard\/verify-email\?token=([A-Za-z0-9]+))/.exec(mail.text)!;
    expect(link[1]!.startsWith(`${ctx.config.http.publicBaseUrl}/dashboard/verify-email`)).toBe(true);
    expect((await client.call('POST', '/verify-email', { token: link[2] })).statusCode).toBe(200);
    // A token works once.
    expect((await client.call('POST', '/verify-email', { token: link[2] })).statusCode).toBe(422);

    const signIn = await client.call('POST', '/sign-in', { email: 'owner@example.com', password: PASSWORD });
    expect(signIn.statusCode).toBe(200);
    const session = signIn.cookies.find((c) => c.name === 'svc_dash_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
    expect(session.secure).toBeFalsy();
    expect(session.expires!.getTime() - Date.now()).toBeGreaterThan(11 * 3600_000);
    expect(session.expires!.getTime() - Date.now()).toBeLessThanOrEqual(12 * 3600_000);
    // Stored hashed: the cookie's value is nowhere in the table.
    const stored = await ctx.db.sql`select token_hash from dashboard_sessions`;
    expect(stored.map((r) => r.token_hash)).not.toContain(session.value);

    const me = await client.call('GET', '/me');
    expect(me.json()).toEqual({
      ok: true,
      user: { id: user!.id, email: 'owner@example.com', role: 'owner' },
      merchant: { id: merchant!.id, name: 'Corner Shop', status: 'pending_review' },
      liveKeyWaiting: false,
      steppedUp: false,
      twoFactor: false,
    });
  });

  it('answers a second sign-up of the same address like the first, and mails a notice instead', async () => {
    await signedUpOwner(ctx.app, mailbox, 'twice@example.com');
    const again = await new DashboardClient(ctx.app).call('POST', '/sign-up', {
      businessName: 'Other',
      email: 'twice@example.com',
      password: 'another password 123',
    });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual({ ok: true });
    await mailbox.waitFor('twice@example.com', /tried to sign up/);
    const users = await ctx.db.sql`select count(*)::int as n from dashboard_users where email = 'twice@example.com'`;
    expect(users[0]!.n).toBe(1);
  });

  it('answers two sign-ups of one address at the same moment alike: one account, one merchant, a notice', async () => {
    const waitingInserts = async () =>
      (
        await ctx.db.sql`select count(*)::int as n from pg_locks
          where relation = 'dashboard_users'::regclass and mode = 'RowExclusiveLock' and not granted`
      )[0]!.n as number;
    // Both past their check that the address is free, at once: inserts into dashboard_users are held
    // until both wait at theirs, then let go together.
    const { signUps } = await ctx.db.sql.begin(async (sql) => {
      await sql`lock table dashboard_users in share mode`;
      const started = ['Race One', 'Race Two'].map((businessName, i) =>
        new DashboardClient(ctx.app, `198.51.100.${90 + i}`).call('POST', '/sign-up', {
          businessName,
          email: 'racing@example.com',
          password: PASSWORD,
        }),
      );
      const deadline = Date.now() + 20_000;
      while ((await waitingInserts()) < 2) {
        if (Date.now() > deadline) throw new Error('the two sign-ups never waited together');
        await new Promise((r) => setTimeout(r, 20));
      }
      return { signUps: started };
    });
    const answers = await Promise.all(signUps);
    expect(answers.map((r) => [r.statusCode, r.json()])).toEqual([
      [201, { ok: true }],
      [201, { ok: true }],
    ]);
    const users = await ctx.db.sql`select merchant_id from dashboard_users where email = 'racing@example.com'`;
    expect(users).toHaveLength(1);
    const shops = await ctx.db.sql`select id from merchants where name in ('Race One', 'Race Two')`;
    expect(shops.map((m) => m.id)).toEqual([users[0]!.merchant_id]);
    await mailbox.waitFor('racing@example.com', /Confirm your email/);
    await mailbox.waitFor('racing@example.com', /tried to sign up/);
  });

  it('answers 401 in the envelope without a session, and with an unknown one', async () => {
    for (const cookie of [undefined, 'svc_dash_session=made-up']) {
      const res = await ctx.app.inject({ method: 'GET', url: '/dashboard/api/me', headers: cookie ? { cookie } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ ok: false, error: 'Unauthorized', message: expect.any(String), requestId: res.headers['x-request-id'] });
    }
  });

  it('refuses writes without the CSRF token, with a wrong one, or from another origin', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'csrf@example.com');
    for (const csrf of [null, 'wrong-token']) {
      const res = await client.call('POST', '/sign-out', undefined, { csrf });
      expect(res.statusCode, String(csrf)).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, error: 'Forbidden' });
    }
    const foreign = await client.call('POST', '/sign-out', undefined, { headers: { origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    // Not signed out by any of them.
    expect((await client.call('GET', '/me')).statusCode).toBe(200);
    // Sign-up and sign-in are writes too.
    const anonymous = new DashboardClient(ctx.app);
    expect((await anonymous.call('POST', '/sign-in', { email: 'csrf@example.com', password: PASSWORD }, { csrf: null })).statusCode).toBe(
      403,
    );
  });

  it('rotates the session at sign-in and ends it at sign-out', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'rotate@example.com');
    const first = client.cookies.get('svc_dash_session')!;
    const firstCsrf = client.cookies.get('svc_dash_csrf')!;
    expect((await client.call('POST', '/sign-in', { email: 'rotate@example.com', password: PASSWORD })).statusCode).toBe(200);
    const second = client.cookies.get('svc_dash_session')!;
    expect(second).not.toBe(first);
    expect(client.cookies.get('svc_dash_csrf')).not.toBe(firstCsrf);
    // The token held before sign-in (one an attacker could have planted) signs no one in.
    const old = await ctx.app.inject({ method: 'GET', url: '/dashboard/api/me', headers: { cookie: `svc_dash_session=${first}` } });
    expect(old.statusCode).toBe(401);
    expect((await client.call('GET', '/me')).statusCode).toBe(200);

    const out = await client.call('POST', '/sign-out');
    expect(out.statusCode).toBe(200);
    const after = await ctx.app.inject({ method: 'GET', url: '/dashboard/api/me', headers: { cookie: `svc_dash_session=${second}` } });
    expect(after.statusCode).toBe(401);
  });

  it('steps up inside a session with the password only, and not past the sign-in limits', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'stepup@example.com');
    expect((await client.call('GET', '/me')).json().steppedUp).toBe(false);
    const wrong = await client.call('POST', '/step-up', { password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect((await client.call('GET', '/me')).json().steppedUp).toBe(false);
    expect((await client.call('POST', '/step-up', { password: PASSWORD })).statusCode).toBe(200);
    expect((await client.call('GET', '/me')).json().steppedUp).toBe(true);
    // A new session starts without it.
    expect((await client.call('POST', '/sign-in', { email: 'stepup@example.com', password: PASSWORD })).statusCode).toBe(200);
    expect((await client.call('GET', '/me')).json().steppedUp).toBe(false);
    // Without a session there is no one to step up; without the CSRF token nothing changes.
    expect((await new DashboardClient(ctx.app).call('POST', '/step-up', { password: PASSWORD })).statusCode).toBe(401);
    expect((await client.call('POST', '/step-up', { password: PASSWORD }, { csrf: null })).statusCode).toBe(403);
    // Guessing through a stolen cookie counts against the same limit as sign-in (five failures).
    for (let i = 0; i < 4; i++) expect((await client.call('POST', '/step-up', { password: `guess ${i}` })).statusCode).toBe(401);
    expect((await client.call('POST', '/step-up', { password: PASSWORD })).statusCode).toBe(429);
  });

  it('limits wrong passwords per account and address, without locking the owner out from elsewhere', async () => {
    await signedUpOwner(ctx.app, mailbox, 'limited@example.com');
    const attacker = new DashboardClient(ctx.app, '198.51.100.7');
    for (let i = 0; i < 5; i++) {
      const res = await attacker.call('POST', '/sign-in', { email: 'limited@example.com', password: `wrong password ${i}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('The email address or the password is wrong.');
    }
    const limited = await attacker.call('POST', '/sign-in', { email: 'limited@example.com', password: PASSWORD });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The owner, from their own address, signs in as ever.
    const owner = new DashboardClient(ctx.app, '192.0.2.44');
    expect((await owner.call('POST', '/sign-in', { email: 'limited@example.com', password: PASSWORD })).statusCode).toBe(200);
    // Unknown addresses answer exactly like wrong passwords.
    const unknown = await owner.call('POST', '/sign-in', { email: 'nobody@example.com', password: PASSWORD });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().message).toBe('The email address or the password is wrong.');
  });

  it('shows the live key issued at approval once, and it is the key the operator was answered', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'approved@example.com');
    // An owner reveals a key only with a second factor enrolled, and stepped up with it.
    const refused = await client.call('POST', '/api-keys/live/reveal');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/two-factor/);
    await secureOwner(client);
    expect((await client.call('POST', '/api-keys/live/reveal')).statusCode).toBe(409);
    const operatorsKey = await approve(ctx.app, merchantId);
    expect((await client.call('GET', '/me')).json()).toMatchObject({ merchant: { status: 'approved' }, liveKeyWaiting: true });
    const reveal = await client.call('POST', '/api-keys/live/reveal');
    expect(reveal.statusCode).toBe(200);
    expect(reveal.json().apiKey).toBe(operatorsKey);
    expect((await client.call('GET', '/me')).json().liveKeyWaiting).toBe(false);
    const again = await client.call('POST', '/api-keys/live/reveal');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ ok: false, error: 'Conflict' });
    // The key works on the merchant API.
    const lookup = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/transactions/SV_doesnotexist000000000000',
      headers: { authorization: `Bearer ${operatorsKey}` },
    });
    expect(lookup.statusCode).toBe(404);
  });

  it('signs out everywhere: every session of the person ends, no one else’s', async () => {
    const { client: laptop } = await signedUpOwner(ctx.app, mailbox, 'everywhere@example.com');
    const phone = new DashboardClient(ctx.app, '198.51.100.80');
    expect((await phone.call('POST', '/sign-in', { email: 'everywhere@example.com', password: PASSWORD })).statusCode).toBe(200);
    const { client: someoneElse } = await signedUpOwner(ctx.app, mailbox, 'someone-else@example.com');
    const res = await phone.call('POST', '/sign-out-everywhere');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, sessionsEnded: 2 });
    expect((await phone.call('GET', '/me')).statusCode).toBe(401);
    expect((await laptop.call('GET', '/me')).statusCode).toBe(401);
    expect((await someoneElse.call('GET', '/me')).statusCode).toBe(200);
    const rows = await ctx.db
      .sql`select count(*)::int as n from dashboard_sessions s join dashboard_users u on u.id = s.user_id where u.email = 'everywhere@example.com'`;
    expect(rows[0]!.n).toBe(0);
  });

  it('sets Secure on both cookies in production', () => {
    expect(cookieOptions(true, 'session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'lax', path: '/dashboard' });
    expect(cookieOptions(true, 'csrf')).toMatchObject({ secure: true, httpOnly: false, sameSite: 'strict', path: '/dashboard' });
  });

  it('mails the owners when the operator approves, through the mail outbox', async () => {
    const { merchantId } = await signedUpOwner(ctx.app, mailbox, 'approval-mail@example.com', 'Approved Shop');
    const key = await approve(ctx.app, merchantId);
    const mail = await mailbox.waitFor('approval-mail@example.com', /is approved/);
    expect(mail.subject).toBe('Approved Shop is approved');
    expect(mail.text).toContain(`Sign in at ${ctx.config.http.publicBaseUrl}/dashboard/ and reveal it`);
    // The key itself is never in a mail, nor in the outbox's row.
    expect(mail.text).not.toContain(key);
    // Marked sent once the SMTP server has answered, which may be a moment after the sink has the mail.
    const rows = await eventually(
      () => ctx.db.sql`select status, kind, body from customer_mails where merchant_id = ${merchantId}`,
      (r) => r.length === 1 && r[0]!.status === 'sent',
      10_000,
      'the notice marked sent',
    );
    expect(rows).toEqual([{ status: 'sent', kind: 'notice', body: expect.stringContaining('Approved Shop is approved') as unknown }]);
    expect(rows[0]!.body).not.toContain(key);
  });
});
