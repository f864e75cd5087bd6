import type { Database, DatabaseOrTransaction } from '../db/client';
import { deleteMember, listMembers, lockMembers, setMemberRole, type MemberRow } from '../db/queries/dashboard-team';
import { mayChangeMember, type DashboardRole } from '../domain/dashboard-roles';
import { AppError, notFound } from '../domain/errors';

// A merchant's team in the dashboard: its members, their roles, removal. Who may change whom is the
// domain's table (dashboard-roles.ts); that a merchant always keeps an owner is checked here, under
// a lock on the merchant's members.

/** The signed-in person acting in the dashboard, and where from. */
export interface DashboardActor {
  userId: string;
  email: string;
  role: DashboardRole;
  merchantId: string;
  ip: string;
}

export type { MemberRow };

export function createDashboardTeam({ db }: { db: Database }) {
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

  return {
    list: (merchantId: string): Promise<MemberRow[]> => listMembers(db, merchantId),

    changeRole: (actor: DashboardActor, userId: string, role: DashboardRole): Promise<MemberRow> =>
      db.transaction(async (tx) => {
        const member = await changing(tx, actor, userId, role);
        await setMemberRole(tx, actor.merchantId, userId, role);
        return { ...member, role };
      }),

    remove: (actor: DashboardActor, userId: string): Promise<MemberRow> =>
      db.transaction(async (tx) => {
        const member = await changing(tx, actor, userId, null);
        await deleteMember(tx, actor.merchantId, userId);
        return member;
      }),
  };
}

export type DashboardTeam = ReturnType<typeof createDashboardTeam>;
