import { and, asc, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { DashboardRole } from '../../domain/dashboard-roles';
import type { DatabaseOrTransaction } from '../client';
import { dashboardInvitations, dashboardUsers, merchants } from '../schema';

// A merchant's dashboard members. Changes lock the merchant's member rows first, so that two owners
// demoting each other at once cannot leave the merchant with none.

export interface MemberRow {
  id: string;
  email: string;
  role: DashboardRole;
  emailVerifiedAt: Date | null;
  createdAt: Date;
}

const memberColumns = {
  id: dashboardUsers.id,
  email: dashboardUsers.email,
  role: dashboardUsers.role,
  emailVerifiedAt: dashboardUsers.emailVerifiedAt,
  createdAt: dashboardUsers.createdAt,
};

export async function listMembers(db: DatabaseOrTransaction, merchantId: string): Promise<MemberRow[]> {
  return db
    .select(memberColumns)
    .from(dashboardUsers)
    .where(eq(dashboardUsers.merchantId, merchantId))
    .orderBy(asc(dashboardUsers.createdAt));
}

/** Every member of the merchant, locked until the transaction ends. */
export async function lockMembers(tx: DatabaseOrTransaction, merchantId: string): Promise<MemberRow[]> {
  return tx
    .select(memberColumns)
    .from(dashboardUsers)
    .where(eq(dashboardUsers.merchantId, merchantId))
    .orderBy(asc(dashboardUsers.createdAt))
    .for('update');
}

export async function setMemberRole(db: DatabaseOrTransaction, merchantId: string, userId: string, role: DashboardRole): Promise<void> {
  await db
    .update(dashboardUsers)
    .set({ role })
    .where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.id, userId)));
}

/** Removes the member; their sessions and mail tokens go with them (on delete cascade). */
export async function deleteMember(db: DatabaseOrTransaction, merchantId: string, userId: string): Promise<void> {
  await db.delete(dashboardUsers).where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.id, userId)));
}

export type InvitationRow = typeof dashboardInvitations.$inferSelect;

/** The new invitation, replacing a pending one to the same address. */
export async function insertInvitation(db: DatabaseOrTransaction, row: typeof dashboardInvitations.$inferInsert): Promise<InvitationRow> {
  await db
    .delete(dashboardInvitations)
    .where(
      and(
        eq(dashboardInvitations.merchantId, row.merchantId),
        eq(dashboardInvitations.email, row.email),
        isNull(dashboardInvitations.acceptedAt),
      ),
    );
  const [inserted] = await db.insert(dashboardInvitations).values(row).returning();
  return inserted!;
}

/** Invitations not accepted and not expired, newest first. */
export async function listPendingInvitations(db: DatabaseOrTransaction, merchantId: string): Promise<InvitationRow[]> {
  return db
    .select()
    .from(dashboardInvitations)
    .where(
      and(
        eq(dashboardInvitations.merchantId, merchantId),
        isNull(dashboardInvitations.acceptedAt),
        gt(dashboardInvitations.expiresAt, sql`now()`),
      ),
    )
    .orderBy(desc(dashboardInvitations.createdAt));
}

export async function findPendingInvitation(db: DatabaseOrTransaction, merchantId: string, id: string): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(dashboardInvitations)
    .where(and(eq(dashboardInvitations.merchantId, merchantId), eq(dashboardInvitations.id, id), isNull(dashboardInvitations.acceptedAt)));
  return row;
}

export async function deleteInvitation(db: DatabaseOrTransaction, id: string): Promise<void> {
  await db.delete(dashboardInvitations).where(eq(dashboardInvitations.id, id));
}

/** Withdraws the pending invitations this member of the merchant made (to `roles` only, if given); answers them. */
export async function deleteInvitationsBy(
  db: DatabaseOrTransaction,
  merchantId: string,
  inviterEmail: string,
  roles?: readonly DashboardRole[],
): Promise<InvitationRow[]> {
  if (roles?.length === 0) return [];
  return db
    .delete(dashboardInvitations)
    .where(
      and(
        eq(dashboardInvitations.merchantId, merchantId),
        eq(dashboardInvitations.invitedByEmail, inviterEmail),
        isNull(dashboardInvitations.acceptedAt),
        roles ? inArray(dashboardInvitations.role, [...roles]) : undefined,
      ),
    )
    .returning();
}

// An invitation speaks for its inviter, so it holds only while they are still a member of the
// merchant: removal withdraws theirs, and this also covers one left from before that rule.
const inviterStillMember = sql`exists (select 1 from ${dashboardUsers}
  where ${dashboardUsers.email} = ${dashboardInvitations.invitedByEmail} and ${dashboardUsers.merchantId} = ${dashboardInvitations.merchantId})`;

/** The unexpired, unaccepted invitation of this token, with its merchant's name. */
export async function findInvitationByToken(db: DatabaseOrTransaction, tokenHash: string) {
  const [row] = await db
    .select({ invitation: dashboardInvitations, merchantName: merchants.name })
    .from(dashboardInvitations)
    .innerJoin(merchants, eq(merchants.id, dashboardInvitations.merchantId))
    .where(
      and(
        eq(dashboardInvitations.tokenHash, tokenHash),
        isNull(dashboardInvitations.acceptedAt),
        gt(dashboardInvitations.expiresAt, sql`now()`),
        inviterStillMember,
      ),
    );
  return row;
}

/** Uses the invitation up (once: a second acceptance finds nothing). */
export async function acceptInvitation(db: DatabaseOrTransaction, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await db
    .update(dashboardInvitations)
    .set({ acceptedAt: sql`now()` })
    .where(
      and(
        eq(dashboardInvitations.tokenHash, tokenHash),
        isNull(dashboardInvitations.acceptedAt),
        gt(dashboardInvitations.expiresAt, sql`now()`),
        inviterStillMember,
      ),
    )
    .returning();
  return row;
}

/** Owners' addresses, for the notices they get (a new member, the merchant approved). */
export async function ownerEmails(db: DatabaseOrTransaction, merchantId: string): Promise<string[]> {
  const rows = await db
    .select({ email: dashboardUsers.email })
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.role, 'owner')));
  return rows.map((r) => r.email);
}
