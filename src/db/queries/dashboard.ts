import { and, eq, gt, isNotNull, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { dashboardAuditLog, dashboardEmailTokens, dashboardInvitations, dashboardSessions, dashboardUsers, merchants } from '../schema';

// The dashboard's people, sessions and email tokens. Tokens are looked up by their
// SHA-256 hash; expiry is decided by Postgres's clock, so every API process agrees.

export type DashboardUserRow = typeof dashboardUsers.$inferSelect;

/** The unique index of people's addresses (schema/dashboard.ts): one address, one account. */
export const DASHBOARD_USER_EMAIL_INDEX = 'dashboard_users_email_idx';

export async function insertDashboardUser(db: DatabaseOrTransaction, row: typeof dashboardUsers.$inferInsert): Promise<DashboardUserRow> {
  const [inserted] = await db.insert(dashboardUsers).values(row).returning();
  return inserted!;
}

export async function findDashboardUserByEmail(db: DatabaseOrTransaction, email: string): Promise<DashboardUserRow | undefined> {
  return db.query.dashboardUsers.findFirst({ where: eq(dashboardUsers.email, email) });
}

export async function findDashboardUserById(db: DatabaseOrTransaction, id: string): Promise<DashboardUserRow | undefined> {
  return db.query.dashboardUsers.findFirst({ where: eq(dashboardUsers.id, id) });
}

export async function insertEmailToken(db: DatabaseOrTransaction, row: typeof dashboardEmailTokens.$inferInsert): Promise<void> {
  await db.insert(dashboardEmailTokens).values(row);
}

/** Uses an unexpired, unused token up; answers its user id, or undefined. */
export async function useEmailToken(
  db: DatabaseOrTransaction,
  tokenHash: string,
  purpose: (typeof dashboardEmailTokens.$inferSelect)['purpose'],
): Promise<string | undefined> {
  const [row] = await db
    .update(dashboardEmailTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(dashboardEmailTokens.tokenHash, tokenHash),
        eq(dashboardEmailTokens.purpose, purpose),
        isNull(dashboardEmailTokens.usedAt),
        gt(dashboardEmailTokens.expiresAt, sql`now()`),
      ),
    )
    .returning({ userId: dashboardEmailTokens.userId });
  return row?.userId;
}

/** Spends every unused token of the person for this purpose (a reset's other links, once one was used). */
export async function spendEmailTokens(
  db: DatabaseOrTransaction,
  userId: string,
  purpose: (typeof dashboardEmailTokens.$inferSelect)['purpose'],
): Promise<void> {
  await db
    .update(dashboardEmailTokens)
    .set({ usedAt: sql`now()` })
    .where(and(eq(dashboardEmailTokens.userId, userId), eq(dashboardEmailTokens.purpose, purpose), isNull(dashboardEmailTokens.usedAt)));
}

export async function setPasswordHash(db: DatabaseOrTransaction, userId: string, passwordHash: string): Promise<void> {
  await db.update(dashboardUsers).set({ passwordHash }).where(eq(dashboardUsers.id, userId));
}

export async function markEmailVerified(db: DatabaseOrTransaction, userId: string): Promise<void> {
  await db
    .update(dashboardUsers)
    .set({ emailVerifiedAt: sql`coalesce(${dashboardUsers.emailVerifiedAt}, now())` })
    .where(eq(dashboardUsers.id, userId));
}

export async function insertSession(
  db: DatabaseOrTransaction,
  row: { tokenHash: string; userId: string; ip: string; ttlSeconds: number },
): Promise<Date> {
  const [inserted] = await db
    .insert(dashboardSessions)
    .values({ tokenHash: row.tokenHash, userId: row.userId, ip: row.ip, expiresAt: sql`now() + make_interval(secs => ${row.ttlSeconds})` })
    .returning({ expiresAt: dashboardSessions.expiresAt });
  return inserted!.expiresAt;
}

/** A step-up (password, and second factor where enrolled) counts for this long. */
export const STEP_UP_TTL_SECONDS = 10 * 60;

export async function markSteppedUp(db: DatabaseOrTransaction, tokenHash: string): Promise<void> {
  await db
    .update(dashboardSessions)
    .set({ steppedUpAt: sql`now()` })
    .where(eq(dashboardSessions.tokenHash, tokenHash));
}

export async function deleteSession(db: DatabaseOrTransaction, tokenHash: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.tokenHash, tokenHash));
}

export async function deleteExpiredSessions(db: DatabaseOrTransaction): Promise<void> {
  await db.delete(dashboardSessions).where(lte(dashboardSessions.expiresAt, sql`now()`));
}

/** The unexpired session of this token, with its person and their merchant. */
export async function findSession(db: DatabaseOrTransaction, tokenHash: string) {
  const [row] = await db
    .select({
      userId: dashboardUsers.id,
      email: dashboardUsers.email,
      role: dashboardUsers.role,
      merchantId: merchants.id,
      merchantName: merchants.name,
      merchantStatus: merchants.status,
      liveKeyWaiting: sql<boolean>`${merchants.liveKeyToRevealEncrypted} is not null`,
      twoFactorEnabled: sql<boolean>`${dashboardUsers.totpEnabledAt} is not null`,
      steppedUpRecently: sql<boolean>`coalesce(${dashboardSessions.steppedUpAt} > now() - make_interval(secs => ${STEP_UP_TTL_SECONDS}), false)`,
    })
    .from(dashboardSessions)
    .innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardSessions.userId))
    .innerJoin(merchants, eq(merchants.id, dashboardUsers.merchantId))
    .where(and(eq(dashboardSessions.tokenHash, tokenHash), gt(dashboardSessions.expiresAt, sql`now()`)));
  return row;
}

export async function merchantHasDashboardUsers(db: DatabaseOrTransaction, merchantId: string): Promise<boolean> {
  const [row] = await db.select({ id: dashboardUsers.id }).from(dashboardUsers).where(eq(dashboardUsers.merchantId, merchantId)).limit(1);
  return row !== undefined;
}

export async function setLiveKeyToReveal(db: DatabaseOrTransaction, merchantId: string, sealed: string | null): Promise<void> {
  await db.update(merchants).set({ liveKeyToRevealEncrypted: sealed }).where(eq(merchants.id, merchantId));
}

/** The owners' confirmed addresses: who is told of a change to where the merchant's money goes. */
export async function ownerEmails(db: DatabaseOrTransaction, merchantId: string): Promise<string[]> {
  const rows = await db
    .select({ email: dashboardUsers.email })
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.role, 'owner'), isNotNull(dashboardUsers.emailVerifiedAt)));
  return rows.map((r) => r.email);
}

/** Ends every session of the person but the one of `keepTokenHash`; answers how many ended. */
export async function deleteOtherSessions(db: DatabaseOrTransaction, userId: string, keepTokenHash: string): Promise<number> {
  const rows = await db
    .delete(dashboardSessions)
    .where(and(eq(dashboardSessions.userId, userId), ne(dashboardSessions.tokenHash, keepTokenHash)))
    .returning({ userId: dashboardSessions.userId });
  return rows.length;
}

/**
 * The dashboard's rows nothing reads any more, removed by the API's sweep: sessions past their
 * expiry, email tokens spent or expired, invitations past their 7 days (accepted or not: the audit
 * log keeps who accepted what), and audit rows older than the retention. Answers what each removed.
 */
export async function purgeDashboardLeftovers(
  db: DatabaseOrTransaction,
  auditRetentionDays: number,
): Promise<{ sessions: number; emailTokens: number; invitations: number; auditRows: number }> {
  const sessions = await db
    .delete(dashboardSessions)
    .where(lte(dashboardSessions.expiresAt, sql`now()`))
    .returning({ userId: dashboardSessions.userId });
  const emailTokens = await db
    .delete(dashboardEmailTokens)
    .where(or(isNotNull(dashboardEmailTokens.usedAt), lte(dashboardEmailTokens.expiresAt, sql`now()`)))
    .returning({ userId: dashboardEmailTokens.userId });
  const invitations = await db
    .delete(dashboardInvitations)
    .where(lte(dashboardInvitations.expiresAt, sql`now()`))
    .returning({ id: dashboardInvitations.id });
  const auditRows = await db
    .delete(dashboardAuditLog)
    .where(lt(dashboardAuditLog.createdAt, sql`now() - make_interval(days => ${auditRetentionDays})`))
    .returning({ id: dashboardAuditLog.id });
  return { sessions: sessions.length, emailTokens: emailTokens.length, invitations: invitations.length, auditRows: auditRows.length };
}

/** Ends every session of the person, wherever they signed in. */
export async function deleteUserSessions(db: DatabaseOrTransaction, userId: string): Promise<number> {
  const rows = await db
    .delete(dashboardSessions)
    .where(eq(dashboardSessions.userId, userId))
    .returning({ userId: dashboardSessions.userId });
  return rows.length;
}
