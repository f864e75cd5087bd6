import { and, asc, eq } from 'drizzle-orm';
import type { DashboardRole } from '../../domain/dashboard-roles';
import type { DatabaseOrTransaction } from '../client';
import { dashboardUsers } from '../schema';

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
