import { describe, expect, it } from 'vitest';
import { DashboardClient, PASSWORD, secureOwner, signedInMember, signedUpOwner, stepUp } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';
import type { Mailer } from '../../src/mail/mailer';
import { createDashboardTeam } from '../../src/accounts/dashboard-team';

// The team page's API: members and roles; owners are touched by owners only; a merchant always
// keeps an owner; a removed member's sessions end with them; a role changes only after a step-up.
describe('dashboard team', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('lists the members, changes a role, and removes a member whose session ends', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'team-owner@example.com');
    const dev = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'team-dev@example.com', 'developer');
    const list = (await owner.call('GET', '/team')).json();
    expect(list.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['team-owner@example.com', 'owner'],
      ['team-dev@example.com', 'developer'],
    ]);
    // Giving a role asks who the person is again, as moving money does.
    const unconfirmed = await owner.call('POST', `/team/${dev.userId}/role`, { role: 'viewer' });
    expect(unconfirmed.statusCode).toBe(403);
    expect(unconfirmed.json().message).toMatch(/two-factor/);
    await secureOwner(owner);
    const changed = await owner.call('POST', `/team/${dev.userId}/role`, { role: 'viewer' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().member).toMatchObject({ id: dev.userId, role: 'viewer' });
    // The new role counts at once, in the session the member already has.
    expect((await dev.client.call('GET', '/api-keys')).statusCode).toBe(403);
    expect((await dev.client.call('GET', '/me')).json().user.role).toBe('viewer');

    expect((await owner.call('POST', `/team/${dev.userId}/role`, { role: 'superuser' })).statusCode).toBe(422);
    const removed = await owner.call('DELETE', `/team/${dev.userId}`);
    expect(removed.statusCode).toBe(200);
    expect((await dev.client.call('GET', '/me')).statusCode).toBe(401);
    expect(
      (
        await ctx.db
          .sql`select count(*)::int as n from dashboard_sessions s join dashboard_users u on u.id = s.user_id where u.email = 'team-dev@example.com'`
      )[0]!.n,
    ).toBe(0);
    expect((await owner.call('DELETE', `/team/${dev.userId}`)).statusCode).toBe(404);
  });

  it('never removes or demotes the last owner; a second owner may', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'last-owner@example.com');
    const ownerId = (await owner.call('GET', '/me')).json().user.id;
    await secureOwner(owner);
    for (const res of [
      await owner.call('POST', `/team/${ownerId}/role`, { role: 'admin' }),
      await owner.call('DELETE', `/team/${ownerId}`),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('last owner') });
    }
    const second = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'second-owner@example.com', 'owner');
    await secureOwner(second.client);
    expect((await second.client.call('POST', `/team/${ownerId}/role`, { role: 'admin' })).statusCode).toBe(200);
    // Now the second is the last.
    expect((await second.client.call('DELETE', `/team/${second.userId}`)).statusCode).toBe(409);
    const owners = await ctx.db.sql`select email from dashboard_users where merchant_id = ${merchantId} and role = 'owner'`;
    expect(owners.map((r) => r.email)).toEqual(['second-owner@example.com']);
  });

  it('lets an admin manage admins, developers and viewers, never owners', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'adm-owner@example.com');
    const ownerId = (await owner.call('GET', '/me')).json().user.id;
    const admin = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'adm-admin@example.com', 'admin');
    const viewer = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'adm-viewer@example.com', 'viewer');
    // An admin without a second factor: the password is their step-up.
    const unconfirmed = await admin.client.call('POST', `/team/${viewer.userId}/role`, { role: 'developer' });
    expect(unconfirmed.statusCode).toBe(403);
    expect(unconfirmed.json().message).toMatch(/Confirm your password/);
    await stepUp(admin.client);
    expect((await admin.client.call('POST', `/team/${viewer.userId}/role`, { role: 'developer' })).statusCode).toBe(200);
    for (const res of [
      await admin.client.call('POST', `/team/${viewer.userId}/role`, { role: 'owner' }),
      await admin.client.call('POST', `/team/${admin.userId}/role`, { role: 'owner' }),
      await admin.client.call('POST', `/team/${ownerId}/role`, { role: 'viewer' }),
      await admin.client.call('DELETE', `/team/${ownerId}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, error: 'Forbidden' });
    }
    const roles = await ctx.db.sql`select email, role from dashboard_users where merchant_id = ${merchantId} order by email`;
    expect(roles.map((r) => `${r.email}:${r.role}`)).toEqual([
      'adm-admin@example.com:admin',
      'adm-owner@example.com:owner',
      'adm-viewer@example.com:developer',
    ]);
    expect((await admin.client.call('DELETE', `/team/${viewer.userId}`)).statusCode).toBe(200);
  });

  it('cross-tenant: another merchant’s member is not found', async () => {
    const a = await signedUpOwner(ctx.app, mailbox, 'team-a@example.com', 'Shop A');
    const b = await signedUpOwner(ctx.app, mailbox, 'team-b@example.com', 'Shop B');
    const memberB = await signedInMember(ctx.app, ctx.db.sql, b.merchantId, 'team-b-dev@example.com', 'developer');
    expect((await a.client.call('GET', '/team')).body).not.toContain('team-b');
    await secureOwner(a.client);
    expect((await a.client.call('POST', `/team/${memberB.userId}/role`, { role: 'viewer' })).statusCode).toBe(404);
    expect((await a.client.call('DELETE', `/team/${memberB.userId}`)).statusCode).toBe(404);
    expect((await b.client.call('GET', '/team')).json().members).toHaveLength(2);
  });

  const linkToken = (text: string) => /accept-invitation\?token=([A-Za-z0-9]+)/.exec(text)![1]!;

  it('invites by mail: a single-use link sets the password and makes a member; the owners hear of it', async () => {
    const { client: owner } = await signedUpOwner(ctx.app, mailbox, 'inv-owner@example.com', 'Inviting Shop');
    const res = await owner.call('POST', '/team/invitations', { email: 'New.Dev@Example.com', role: 'developer' });
    expect(res.statusCode).toBe(201);
    const invitation = res.json().invitation;
    expect(invitation).toMatchObject({ email: 'new.dev@example.com', role: 'developer', invitedBy: 'inv-owner@example.com' });
    const days = (Date.parse(invitation.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    expect((await owner.call('GET', '/team/invitations')).json().invitations).toEqual([invitation]);

    const mail = await mailbox.waitFor('new.dev@example.com', /invited to Inviting Shop/);
    expect(mail.text).toContain(`${ctx.config.http.publicBaseUrl}/dashboard/accept-invitation?token=`);
    const token = linkToken(mail.text);
    // Stored as a hash only.
    expect((await ctx.db.sql`select token_hash from dashboard_invitations`).map((r) => r.token_hash)).not.toContain(token);

    const invited = new DashboardClient(ctx.app, '198.51.100.40');
    expect((await invited.call('POST', '/invitations/preview', { token })).json()).toEqual({
      ok: true,
      merchantName: 'Inviting Shop',
      email: 'new.dev@example.com',
      role: 'developer',
    });
    expect((await invited.call('POST', '/invitations/accept', { token, password: 'short' })).statusCode).toBe(422);
    const accepted = await invited.call('POST', '/invitations/accept', { token, password: 'a long new password 42' });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json()).toEqual({ ok: true, email: 'new.dev@example.com' });
    // Once only.
    const again = await invited.call('POST', '/invitations/accept', { token, password: 'another password 42' });
    expect(again.statusCode).toBe(422);
    expect(again.json().message).toMatch(/expired, was withdrawn or was used/);

    expect((await invited.call('POST', '/sign-in', { email: 'new.dev@example.com', password: 'a long new password 42' })).statusCode).toBe(
      200,
    );
    expect((await invited.call('GET', '/me')).json()).toMatchObject({ user: { role: 'developer' }, merchant: { name: 'Inviting Shop' } });
    expect((await invited.call('GET', '/api-keys')).statusCode).toBe(200);
    expect((await owner.call('GET', '/team/invitations')).json().invitations).toEqual([]);
    const notice = await mailbox.waitFor('inv-owner@example.com', /new member joined/);
    expect(notice.text).toContain('new.dev@example.com accepted the invitation from inv-owner@example.com and joined as developer');
  });

  it('refuses an expired or withdrawn link, and an address that already has an account', async () => {
    const { client: owner } = await signedUpOwner(ctx.app, mailbox, 'inv2-owner@example.com', 'Second Shop');
    await owner.call('POST', '/team/invitations', { email: 'late@example.com', role: 'viewer' });
    const late = linkToken((await mailbox.waitFor('late@example.com', /invited/)).text);
    await ctx.db.sql`update dashboard_invitations set expires_at = now() - interval '1 second' where email = 'late@example.com'`;
    const expired = await new DashboardClient(ctx.app).call('POST', '/invitations/accept', { token: late, password: PASSWORD });
    expect(expired.statusCode).toBe(422);
    expect((await new DashboardClient(ctx.app).call('POST', '/invitations/preview', { token: late })).statusCode).toBe(422);

    const withdrawn = (await owner.call('POST', '/team/invitations', { email: 'withdrawn@example.com', role: 'viewer' })).json().invitation;
    const withdrawnToken = linkToken((await mailbox.waitFor('withdrawn@example.com', /invited/)).text);
    expect((await owner.call('DELETE', `/team/invitations/${withdrawn.id}`)).statusCode).toBe(200);
    expect(
      (await new DashboardClient(ctx.app).call('POST', '/invitations/accept', { token: withdrawnToken, password: PASSWORD })).statusCode,
    ).toBe(422);

    await signedUpOwner(ctx.app, mailbox, 'taken@example.com', 'Other Shop');
    const taken = await owner.call('POST', '/team/invitations', { email: 'Taken@example.com', role: 'admin' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({
      ok: false,
      error: 'Conflict',
      message: expect.stringContaining('already has a dashboard account'),
    });
    expect(mailbox.messages().filter((m) => m.to.includes('taken@example.com') && /invited/.test(m.subject))).toEqual([]);
    const users = await ctx.db
      .sql`select count(*)::int as n from dashboard_users where email in ('late@example.com', 'withdrawn@example.com')`;
    expect(users[0]!.n).toBe(0);
  });

  it('withdraws a removed member’s invitations with them, in the audit log; an older one of a gone inviter is refused too', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'inv4-owner@example.com', 'Fourth Shop');
    const admin = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'inv4-admin@example.com', 'admin');
    const made = await admin.client.call('POST', '/team/invitations', { email: 'inv4-guest@example.com', role: 'admin' });
    expect(made.statusCode).toBe(201);
    const token = linkToken((await mailbox.waitFor('inv4-guest@example.com', /invited/)).text);
    // The owner's own invitation stays.
    const kept = (await owner.call('POST', '/team/invitations', { email: 'inv4-kept@example.com', role: 'viewer' })).json().invitation;

    expect((await owner.call('DELETE', `/team/${admin.userId}`)).statusCode).toBe(200);
    const guest = new DashboardClient(ctx.app, '198.51.100.33');
    expect((await guest.call('POST', '/invitations/preview', { token })).statusCode).toBe(422);
    expect((await guest.call('POST', '/invitations/accept', { token, password: PASSWORD })).statusCode).toBe(422);
    const users = await ctx.db.sql`select count(*)::int as n from dashboard_users where email = 'inv4-guest@example.com'`;
    expect(users[0]!.n).toBe(0);
    expect((await owner.call('GET', '/team/invitations')).json().invitations.map((i: { id: string }) => i.id)).toEqual([kept.id]);
    const log = (await owner.call('GET', '/audit-log')).json().entries as { action: string; target: string | null; details: unknown }[];
    expect(log.find((e) => e.action === 'invitation.withdrawn')).toMatchObject({
      target: made.json().invitation.id,
      details: { email: 'inv4-guest@example.com', role: 'admin', reason: 'inviter_removed' },
    });
    expect(log.find((e) => e.action === 'member.removed')).toMatchObject({ details: { invitationsWithdrawn: 1 } });

    // An invitation left behind by an inviter removed before this rule: its link finds nothing either.
    const other = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'inv4-other@example.com', 'admin');
    await other.client.call('POST', '/team/invitations', { email: 'inv4-late@example.com', role: 'viewer' });
    const lateToken = linkToken((await mailbox.waitFor('inv4-late@example.com', /invited/)).text);
    await ctx.db.sql`delete from dashboard_users where id = ${other.userId}`;
    expect((await guest.call('POST', '/invitations/preview', { token: lateToken })).statusCode).toBe(422);
    expect((await guest.call('POST', '/invitations/accept', { token: lateToken, password: PASSWORD })).statusCode).toBe(422);
  });

  it('withdraws the invitations a member’s new role could not send, in the audit log; an older one is refused too', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'inv5-owner@example.com', 'Fifth Shop');
    await secureOwner(owner);
    const second = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'inv5-second@example.com', 'owner');
    const asOwner = await second.client.call('POST', '/team/invitations', { email: 'inv5-co-owner@example.com', role: 'owner' });
    const asViewer = await second.client.call('POST', '/team/invitations', { email: 'inv5-viewer@example.com', role: 'viewer' });
    expect([asOwner.statusCode, asViewer.statusCode]).toEqual([201, 201]);
    const ownerToken = linkToken((await mailbox.waitFor('inv5-co-owner@example.com', /invited/)).text);
    const viewerToken = linkToken((await mailbox.waitFor('inv5-viewer@example.com', /invited/)).text);

    // An owner made an admin no longer speaks for a new owner; their viewer's invitation stays.
    expect((await owner.call('POST', `/team/${second.userId}/role`, { role: 'admin' })).statusCode).toBe(200);
    const guest = new DashboardClient(ctx.app, '198.51.100.34');
    expect((await guest.call('POST', '/invitations/preview', { token: ownerToken })).statusCode).toBe(422);
    expect((await guest.call('POST', '/invitations/accept', { token: ownerToken, password: PASSWORD })).statusCode).toBe(422);
    expect((await guest.call('POST', '/invitations/preview', { token: viewerToken })).json()).toMatchObject({ role: 'viewer' });
    const pending = (await owner.call('GET', '/team/invitations')).json().invitations as { id: string }[];
    expect(pending.map((i) => i.id)).toEqual([asViewer.json().invitation.id]);
    const log = (await owner.call('GET', '/audit-log')).json().entries as { action: string; target: string | null; details: unknown }[];
    expect(log.find((e) => e.action === 'invitation.withdrawn')).toMatchObject({
      target: asOwner.json().invitation.id,
      details: { email: 'inv5-co-owner@example.com', role: 'owner', reason: 'inviter_role_changed' },
    });
    expect(log.find((e) => e.action === 'member.role_changed')).toMatchObject({ details: { to: 'admin', invitationsWithdrawn: 1 } });

    // Made a viewer, they invite no one: the rest goes too.
    expect((await owner.call('POST', `/team/${second.userId}/role`, { role: 'viewer' })).statusCode).toBe(200);
    expect((await guest.call('POST', '/invitations/preview', { token: viewerToken })).statusCode).toBe(422);
    expect((await owner.call('GET', '/team/invitations')).json().invitations).toEqual([]);

    // A role changed by another path (here, straight in the table) leaves an invitation that is refused all the same.
    const admin = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'inv5-admin@example.com', 'admin');
    expect((await admin.client.call('POST', '/team/invitations', { email: 'inv5-late@example.com', role: 'developer' })).statusCode).toBe(
      201,
    );
    const lateToken = linkToken((await mailbox.waitFor('inv5-late@example.com', /invited/)).text);
    await ctx.db.sql`update dashboard_users set role = 'developer' where id = ${admin.userId}`;
    expect((await guest.call('POST', '/invitations/preview', { token: lateToken })).statusCode).toBe(422);
    expect((await guest.call('POST', '/invitations/accept', { token: lateToken, password: PASSWORD })).statusCode).toBe(422);
    const joined = await ctx.db.sql`select email from dashboard_users where email like 'inv5-%' and email <> all(${[
      'inv5-owner@example.com',
      'inv5-second@example.com',
      'inv5-admin@example.com',
    ]})`;
    expect(joined).toEqual([]);
  });

  it('makes no invitation when its mail cannot be sent: 503 to retry, nothing stored, nothing audited', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'inv-nomail@example.com');
    const me = (await owner.call('GET', '/me')).json().user;
    const failing: Mailer = { send: () => Promise.reject(new Error('SMTP is down')), close: () => {} };
    const team = createDashboardTeam({ db: ctx.db.db, mailer: failing, publicBaseUrl: ctx.config.http.publicBaseUrl });
    const actor = { userId: me.id, email: 'inv-nomail@example.com', role: 'owner' as const, merchantId, ip: '198.51.100.41' };
    const invite = team.invite(actor, { email: 'unmailed@example.com', role: 'viewer' }, 'No Mail Shop');
    await expect(invite).rejects.toMatchObject({ code: 'Unavailable', message: expect.stringContaining('not made') });
    expect((await owner.call('GET', '/team/invitations')).json().invitations).toEqual([]);
    expect(await ctx.db.sql`select id from dashboard_invitations where email = 'unmailed@example.com'`).toHaveLength(0);
    expect(
      await ctx.db.sql`select id from dashboard_audit_log where action = 'invitation.sent' and merchant_id = ${merchantId}`,
    ).toHaveLength(0);
    // With the mail back, the same invitation goes out.
    expect((await owner.call('POST', '/team/invitations', { email: 'unmailed@example.com', role: 'viewer' })).statusCode).toBe(201);
    await mailbox.waitFor('unmailed@example.com', /invited to/);
  });

  it('lets an admin invite anyone but an owner; another merchant’s invitation is not found', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'inv3-owner@example.com');
    const admin = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'inv3-admin@example.com', 'admin');
    const asOwner = await admin.client.call('POST', '/team/invitations', { email: 'would-be-owner@example.com', role: 'owner' });
    expect(asOwner.statusCode).toBe(403);
    expect((await admin.client.call('POST', '/team/invitations', { email: 'inv3-viewer@example.com', role: 'viewer' })).statusCode).toBe(
      201,
    );
    const ownerInvite = (await owner.call('POST', '/team/invitations', { email: 'co-owner@example.com', role: 'owner' })).json().invitation;
    expect((await admin.client.call('DELETE', `/team/invitations/${ownerInvite.id}`)).statusCode).toBe(403);

    const other = await signedUpOwner(ctx.app, mailbox, 'inv3-other@example.com');
    expect((await other.client.call('DELETE', `/team/invitations/${ownerInvite.id}`)).statusCode).toBe(404);
    expect((await other.client.call('GET', '/team/invitations')).json().invitations).toEqual([]);
    expect(
      (await owner.call('GET', '/team/invitations'))
        .json()
        .invitations.map((i: { email: string }) => i.email)
        .sort(),
    ).toEqual(['co-owner@example.com', 'inv3-viewer@example.com']);
  });

  it('answers 409 in the envelope to the loser of two merchants’ invitations to one address accepted at once', async () => {
    const a = await signedUpOwner(ctx.app, mailbox, 'race-a@example.com', 'Shop A');
    const b = await signedUpOwner(ctx.app, mailbox, 'race-b@example.com', 'Shop B');
    for (const owner of [a.client, b.client]) {
      expect((await owner.call('POST', '/team/invitations', { email: 'wanted@example.com', role: 'viewer' })).statusCode).toBe(201);
    }
    await mailbox.waitFor('wanted@example.com', /Shop A/);
    await mailbox.waitFor('wanted@example.com', /Shop B/);
    const tokens = mailbox
      .messages()
      .filter((m) => m.to.includes('wanted@example.com'))
      .map((m) => linkToken(m.text));
    expect(tokens).toHaveLength(2);

    // Both acceptances past their check that the address has no account, at once: inserts into
    // dashboard_users are held until both wait at theirs, then let go together.
    const waitingInserts = async () =>
      (
        await ctx.db.sql`select count(*)::int as n from pg_locks
          where relation = 'dashboard_users'::regclass and mode = 'RowExclusiveLock' and not granted`
      )[0]!.n as number;
    const { accepts } = await ctx.db.sql.begin(async (sql) => {
      await sql`lock table dashboard_users in share mode`;
      const started = tokens.map((token, i) =>
        new DashboardClient(ctx.app, `198.51.100.${70 + i}`).call('POST', '/invitations/accept', { token, password: PASSWORD }),
      );
      const deadline = Date.now() + 20_000;
      while ((await waitingInserts()) < 2) {
        if (Date.now() > deadline) throw new Error('the two acceptances never waited together');
        await new Promise((r) => setTimeout(r, 20));
      }
      return { accepts: started };
    });
    const answers = await Promise.all(accepts);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const loser = answers.find((r) => r.statusCode === 409)!;
    expect(loser.json()).toEqual({
      ok: false,
      error: 'Conflict',
      message: expect.stringContaining('already has a dashboard account'),
      requestId: loser.headers['x-request-id'],
    });
    const users = await ctx.db.sql`select merchant_id from dashboard_users where email = 'wanted@example.com'`;
    expect(users).toHaveLength(1);
    // The loser's invitation is left as it was (its acceptance rolled back), not half-used.
    const pending = await ctx.db
      .sql`select merchant_id from dashboard_invitations where email = 'wanted@example.com' and accepted_at is null`;
    expect(pending.map((r) => r.merchant_id)).toEqual([[a.merchantId, b.merchantId].find((m) => m !== users[0]!.merchant_id)]);
  });
});
