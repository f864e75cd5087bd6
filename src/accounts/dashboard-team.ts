import { hash as argon2Hash } from '@node-rs/argon2';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { DASHBOARD_USER_EMAIL_INDEX, findDashboardUserByEmail, insertDashboardUser } from '../db/queries/dashboard';
import {
  acceptInvitation,
  deleteInvitation,
  deleteInvitationsBy,
  deleteMember,
  findInvitationByToken,
  findPendingInvitation,
  insertInvitation,
  listMembers,
  listPendingInvitations,
  lockMembers,
  ownerEmails,
  setMemberRole,
  type InvitationRow,
  type MemberRow,
} from '../db/queries/dashboard-team';
import { DASHBOARD_ROLES, mayChangeMember, type DashboardRole } from '../domain/dashboard-roles';
import { AppError, notFound } from '../domain/errors';
import { randomBase62 } from '../domain/ids';
import { violatedUniqueConstraint } from '../domain/sql-errors';
import type { Mailer } from '../mail/mailer';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { normalizeEmail, tokenHash } from './dashboard-identity';
import { queueNotice } from './merchant-notices';

// A merchant's team in the dashboard: its members, their roles, removal. Who may change whom is the
// domain's table (dashboard-roles.ts); that a merchant always keeps an owner is checked here, under
// a lock on the merchant's members.

export type { DashboardActor, InvitationRow, MemberRow };

const INVITATION_GONE = 'This invitation has expired, was withdrawn or was used already: ask for a new one.';

/** An invitation's link works this long. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const ALREADY_HAS_ACCOUNT =
  'This address already has a dashboard account, and an account belongs to one merchant: invite another address, or ask them to use one.';

export interface TeamDeps {
  db: Database;
  mailer: Mailer;
  /** The service's public base URL: the invitation link's origin. */
  publicBaseUrl: string;
}

export function createDashboardTeam({ db, mailer, publicBaseUrl }: TeamDeps) {
  const dashboardUrl = `${publicBaseUrl}/dashboard`;

  /** The member about to change, after the checks every change shares. */
  async function changing(tx: DatabaseOrTransaction, actor: DashboardActor, userId: string, target: DashboardRole | null) {
    const members = await lockMembers(tx, actor.merchantId);
    const member = members.find((m) => m.id === userId);
    if (!member) throw notFound('Member');
    if (!mayChangeMember(actor.role, member.role, target)) {
      throw new AppError('Forbidden', 'Only an owner can make, change or remove an owner.');
    }
    const owners = members.filter((m) => m.role === 'owner').length;
    if (member.role === 'owner' && target !== 'owner' && owners === 1) {
      throw new AppError('Conflict', 'This is the merchant’s last owner: make someone else an owner first.');
    }
    return member;
  }

  /**
   * Whether the invitation's inviter could still send it: a member of its merchant whose role may
   * invite to its role. Invitations are withdrawn when that stops being so; this also refuses one
   * left from before, or whose inviter changed by another path than the team page.
   */
  async function inviterMayStillInvite(tx: DatabaseOrTransaction, invitation: InvitationRow): Promise<boolean> {
    const inviter = await findDashboardUserByEmail(tx, invitation.invitedByEmail);
    return inviter?.merchantId === invitation.merchantId && mayChangeMember(inviter.role, null, invitation.role);
  }

  /** An invitation the service withdrew with its inviter's removal or new role: a line each. */
  async function auditWithdrawals(tx: DatabaseOrTransaction, actor: DashboardActor, withdrawn: InvitationRow[], reason: string) {
    for (const invitation of withdrawn) {
      await recordAudit(tx, actor, 'invitation.withdrawn', invitation.id, { email: invitation.email, role: invitation.role, reason });
    }
  }

  return {
    list: (merchantId: string): Promise<MemberRow[]> => listMembers(db, merchantId),

    changeRole: (actor: DashboardActor, userId: string, role: DashboardRole): Promise<MemberRow> =>
      db.transaction(async (tx) => {
        const member = await changing(tx, actor, userId, role);
        await setMemberRole(tx, actor.merchantId, userId, role);
        // An invitation speaks for its inviter's role: those the new role could not send are withdrawn
        // (an admin made a viewer takes back the admins they invited).
        const unsendable = DASHBOARD_ROLES.filter((invited) => !mayChangeMember(role, null, invited));
        const withdrawn = await deleteInvitationsBy(tx, actor.merchantId, member.email, unsendable);
        await recordAudit(tx, actor, 'member.role_changed', userId, {
          email: member.email,
          from: member.role,
          to: role,
          invitationsWithdrawn: withdrawn.length,
        });
        await auditWithdrawals(tx, actor, withdrawn, 'inviter_role_changed');
        return { ...member, role };
      }),

    remove: (actor: DashboardActor, userId: string): Promise<MemberRow> =>
      db.transaction(async (tx) => {
        const member = await changing(tx, actor, userId, null);
        await deleteMember(tx, actor.merchantId, userId);
        // Their pending invitations go with them: a link they sent must not let someone in on the
        // authority of a person the merchant no longer trusts.
        const withdrawn = await deleteInvitationsBy(tx, actor.merchantId, member.email);
        await recordAudit(tx, actor, 'member.removed', userId, {
          email: member.email,
          role: member.role,
          invitationsWithdrawn: withdrawn.length,
        });
        await auditWithdrawals(tx, actor, withdrawn, 'inviter_removed');
        return member;
      }),

    invitations: (merchantId: string): Promise<InvitationRow[]> => listPendingInvitations(db, merchantId),

    /**
     * Mails a single-use link to join the merchant with this role. An address that already has an
     * account is told to the inviter (one account, one merchant), not mailed. The mail is sent before
     * the invitation commits, as a wallet change's notice is (merchant-money.ts): a mail that could not
     * be sent leaves no invitation behind (and no audit line saying it was sent), only a 503 to retry.
     * Sent and then not committed, its link finds no invitation and says so.
     */
    async invite(actor: DashboardActor, input: { email: string; role: DashboardRole }, merchantName: string): Promise<InvitationRow> {
      if (!mayChangeMember(actor.role, null, input.role)) throw new AppError('Forbidden', 'Only an owner can invite an owner.');
      const email = normalizeEmail(input.email);
      const token = randomBase62(43);
      return db.transaction(async (tx) => {
        if (await findDashboardUserByEmail(tx, email)) throw new AppError('Conflict', ALREADY_HAS_ACCOUNT);
        const row = await insertInvitation(tx, {
          id: `inv_${randomBase62(16)}`,
          merchantId: actor.merchantId,
          email,
          role: input.role,
          tokenHash: tokenHash(token),
          invitedByEmail: actor.email,
          expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
        });
        await recordAudit(tx, actor, 'invitation.sent', row.id, { email, role: input.role });
        try {
          await mailer.send(
            email,
            `You are invited to ${merchantName} on the merchant dashboard`,
            `${actor.email} invites you to join ${merchantName} on the merchant dashboard as ${input.role === 'admin' ? 'an' : 'a'} ${input.role}.\n\n` +
              `Open this link to choose your password and join:\n\n${dashboardUrl}/accept-invitation?token=${token}\n\n` +
              `The link works once, for 7 days. If you did not expect this, ignore this mail.`,
          );
        } catch {
          throw new AppError('Unavailable', 'The invitation could not be mailed, so it was not made. Please retry.');
        }
        return row;
      });
    },

    revokeInvitation: (actor: DashboardActor, invitationId: string): Promise<InvitationRow> =>
      db.transaction(async (tx) => {
        const invitation = await findPendingInvitation(tx, actor.merchantId, invitationId);
        if (!invitation) throw notFound('Invitation');
        if (!mayChangeMember(actor.role, null, invitation.role))
          throw new AppError('Forbidden', 'Only an owner can withdraw an owner’s invitation.');
        await deleteInvitation(tx, invitation.id);
        await recordAudit(tx, actor, 'invitation.withdrawn', invitation.id, { email: invitation.email, role: invitation.role });
        return invitation;
      }),

    /** What the link invites to, for the page that accepts it. */
    async previewInvitation(token: string): Promise<{ merchantName: string; email: string; role: DashboardRole }> {
      const found = await findInvitationByToken(db, tokenHash(token));
      if (!found || !(await inviterMayStillInvite(db, found.invitation))) throw new AppError('ValidationError', INVITATION_GONE);
      return { merchantName: found.merchantName, email: found.invitation.email, role: found.invitation.role };
    },

    /**
     * The invited person chooses a password and becomes a member (the mail proved their address).
     * The owners hear of it (a notice in the mail outbox, written with the membership): a member they
     * did not expect is worth a look.
     */
    async acceptInvitation(input: { token: string; password: string; ip: string }): Promise<{ email: string }> {
      const passwordHash = await argon2Hash(input.password);
      const invitation = await db.transaction(async (tx) => {
        const accepted = await acceptInvitation(tx, tokenHash(input.token));
        // Thrown, the acceptance rolls back with the transaction.
        if (!accepted || !(await inviterMayStillInvite(tx, accepted))) throw new AppError('ValidationError', INVITATION_GONE);
        if (await findDashboardUserByEmail(tx, accepted.email)) throw new AppError('Conflict', ALREADY_HAS_ACCOUNT);
        // Two merchants' invitations to one address, accepted at once: both find no account above,
        // and the unique address index lets one insert through; the other is the same Conflict.
        const user = await insertDashboardUser(tx, {
          id: `usr_${randomBase62(16)}`,
          merchantId: accepted.merchantId,
          email: accepted.email,
          passwordHash,
          role: accepted.role,
          emailVerifiedAt: new Date(),
        }).catch((err: unknown) => {
          throw violatedUniqueConstraint(err) === DASHBOARD_USER_EMAIL_INDEX ? new AppError('Conflict', ALREADY_HAS_ACCOUNT) : err;
        });
        await recordAudit(
          tx,
          { userId: user.id, email: user.email, role: user.role, merchantId: user.merchantId, ip: input.ip },
          'invitation.accepted',
          accepted.id,
          {
            invitedBy: accepted.invitedByEmail,
            role: accepted.role,
          },
        );
        await queueNotice(tx, accepted.merchantId, await ownerEmails(tx, accepted.merchantId), {
          subject: 'A new member joined your merchant dashboard',
          text:
            `${accepted.email} accepted the invitation from ${accepted.invitedByEmail} and joined as ${accepted.role}.\n\n` +
            `If you did not expect this, remove them on the Team page: ${dashboardUrl}/team`,
        });
        return accepted;
      });
      return { email: invitation.email };
    },
  };
}

export type DashboardTeam = ReturnType<typeof createDashboardTeam>;
