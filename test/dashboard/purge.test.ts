import { describe, expect, it } from 'vitest';
import { startSweeper, type SweepTask } from '../../src/payments/sweep';
import { signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { useMailSink } from '../support/mail';

// The API's periodic sweep (the one that purges expired Idempotency-Keys) removes the
// dashboard's rows past their use, and only those: expired sessions, spent or expired email tokens,
// expired invitations, audit rows older than DASHBOARD_AUDIT_RETENTION_DAYS.
describe('dashboard purge', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('removes exactly the expired sessions, tokens, invitations and audit rows', async () => {
    const { merchantId } = await signedUpOwner(ctx.app, mailbox, 'purge-owner@example.com');
    const [user] = await ctx.db.sql`select id from dashboard_users where email = 'purge-owner@example.com'`;
    const userId = user!.id as string;
    // Only this person's mail tokens: the sign-up's verification (used) goes too; start from none.
    await ctx.db.sql`delete from dashboard_email_tokens where user_id = ${userId}`;
    await ctx.db.sql`insert into dashboard_sessions (token_hash, user_id, expires_at, ip) values
      ('sess_expired', ${userId}, now() - interval '1 second', '192.0.2.1'),
      ('sess_live', ${userId}, now() + interval '1 hour', '192.0.2.1')`;
    await ctx.db.sql`insert into dashboard_email_tokens (token_hash, user_id, purpose, expires_at, used_at) values
      ('tok_used', ${userId}, 'verify_email', now() + interval '1 hour', now()),
      ('tok_reset_used', ${userId}, 'reset_password', now() + interval '1 hour', now()),
      ('tok_expired', ${userId}, 'reset_password', now() - interval '1 second', null),
      ('tok_live', ${userId}, 'reset_password', now() + interval '1 hour', null)`;
    await ctx.db
      .sql`insert into dashboard_invitations (id, merchant_id, email, role, token_hash, invited_by_email, expires_at, accepted_at) values
      ('inv_expired', ${merchantId}, 'a@example.com', 'viewer', 'h_expired', 'purge-owner@example.com', now() - interval '1 second', null),
      ('inv_acceptedold', ${merchantId}, 'b@example.com', 'viewer', 'h_accepted', 'purge-owner@example.com', now() - interval '1 day', now() - interval '3 days'),
      ('inv_live', ${merchantId}, 'c@example.com', 'viewer', 'h_live', 'purge-owner@example.com', now() + interval '7 days', null)`;
    const days = ctx.config.dashboard.auditRetentionDays;
    expect(days).toBe(400);
    await ctx.db.sql`insert into dashboard_audit_log (merchant_id, actor_user_id, actor_email, action, ip, created_at) values
      (${merchantId}, ${userId}, 'purge-owner@example.com', 'old.action', '192.0.2.1', now() - make_interval(days => ${days + 1})),
      (${merchantId}, ${userId}, 'purge-owner@example.com', 'kept.action', '192.0.2.1', now() - make_interval(days => ${days - 1}))`;

    const sessions = async () =>
      (await ctx.db.sql`select token_hash from dashboard_sessions where user_id = ${userId} and token_hash like 'sess_%' order by 1`).map(
        (r) => r.token_hash as string,
      );
    const tokens = async () =>
      (await ctx.db.sql`select token_hash from dashboard_email_tokens where user_id = ${userId} order by 1`).map(
        (r) => r.token_hash as string,
      );
    const invitations = async () =>
      (await ctx.db.sql`select id from dashboard_invitations where merchant_id = ${merchantId} order by 1`).map((r) => r.id as string);
    const audit = async () =>
      (await ctx.db.sql`select action from dashboard_audit_log where merchant_id = ${merchantId} order by id`).map(
        (r) => r.action as string,
      );
    const auditBefore = await audit();
    expect(auditBefore).toContain('old.action');
    const allSessions = async () => (await ctx.db.sql`select count(*)::int as n from dashboard_sessions where user_id = ${userId}`)[0]!.n;
    const sessionsBefore = await allSessions();

    const failures: { err: unknown; task: SweepTask }[] = [];
    const stop = startSweeper(ctx.app.payments.context, 50, (err, task) => failures.push({ err, task }));
    try {
      await eventually(audit, (left) => !left.includes('old.action'), 10_000, 'the old audit row purged');
    } finally {
      stop();
    }
    expect(failures).toEqual([]);
    expect(await sessions()).toEqual(['sess_live']);
    // The owner's own session from signing in stays: only the expired one went.
    expect(await allSessions()).toBe(sessionsBefore - 1);
    expect(await tokens()).toEqual(['tok_live']);
    expect(await invitations()).toEqual(['inv_live']);
    expect(await audit()).toEqual(auditBefore.filter((a) => a !== 'old.action'));
  });
});
