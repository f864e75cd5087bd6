import { describe, expect, it } from 'vitest';
import { signedInMember, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// The team page's API: members and roles; owners are touched by owners only; a merchant always
// keeps an owner; a removed member's sessions end with them.
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
    for (const res of [
      await owner.call('POST', `/team/${ownerId}/role`, { role: 'admin' }),
      await owner.call('DELETE', `/team/${ownerId}`),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('last owner') });
    }
    const second = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'second-owner@example.com', 'owner');
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
    expect((await a.client.call('POST', `/team/${memberB.userId}/role`, { role: 'viewer' })).statusCode).toBe(404);
    expect((await a.client.call('DELETE', `/team/${memberB.userId}`)).statusCode).toBe(404);
    expect((await b.client.call('GET', '/team')).json().members).toHaveLength(2);
  });
});
