import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { dashboardRecoveryCodes, dashboardSessions, dashboardUsers } from '../schema';

// A person's second factor: the sealed TOTP secret, the step of the last code used, recovery codes.

/** Starts (or restarts) an enrolment; refused (false) while a confirmed one is in force. */
export async function setPendingTotp(db: DatabaseOrTransaction, userId: string, sealed: string): Promise<boolean> {
  const rows = await db
    .update(dashboardUsers)
    .set({ totpSecretEncrypted: sealed, totpLastStep: null })
    .where(and(eq(dashboardUsers.id, userId), isNull(dashboardUsers.totpEnabledAt)))
    .returning({ id: dashboardUsers.id });
  return rows.length === 1;
}

export async function enableTotp(db: DatabaseOrTransaction, userId: string): Promise<void> {
  await db
    .update(dashboardUsers)
    .set({ totpEnabledAt: sql`now()` })
    .where(eq(dashboardUsers.id, userId));
}

export async function disableTotp(db: DatabaseOrTransaction, userId: string): Promise<void> {
  await db
    .update(dashboardUsers)
    .set({ totpSecretEncrypted: null, totpEnabledAt: null, totpLastStep: null })
    .where(eq(dashboardUsers.id, userId));
  await db.delete(dashboardRecoveryCodes).where(eq(dashboardRecoveryCodes.userId, userId));
}

/**
 * Marks a code's time step used: true only if it is later than the last one used, so each code (and
 * any code before it) works once, even when two requests race with it.
 */
export async function useTotpStep(db: DatabaseOrTransaction, userId: string, step: number): Promise<boolean> {
  const rows = await db
    .update(dashboardUsers)
    .set({ totpLastStep: step })
    .where(
      and(
        eq(dashboardUsers.id, userId),
        isNotNull(dashboardUsers.totpSecretEncrypted),
        or(isNull(dashboardUsers.totpLastStep), lt(dashboardUsers.totpLastStep, step)),
      ),
    )
    .returning({ id: dashboardUsers.id });
  return rows.length === 1;
}

export async function replaceRecoveryCodes(db: DatabaseOrTransaction, userId: string, codeHashes: string[]): Promise<void> {
  await db.delete(dashboardRecoveryCodes).where(eq(dashboardRecoveryCodes.userId, userId));
  await db.insert(dashboardRecoveryCodes).values(codeHashes.map((codeHash) => ({ codeHash, userId })));
}

/** Uses an unused recovery code of this person up; false when there is none such. */
export async function useRecoveryCode(db: DatabaseOrTransaction, userId: string, codeHash: string): Promise<boolean> {
  const rows = await db
    .update(dashboardRecoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(
      and(eq(dashboardRecoveryCodes.userId, userId), eq(dashboardRecoveryCodes.codeHash, codeHash), isNull(dashboardRecoveryCodes.usedAt)),
    )
    .returning({ codeHash: dashboardRecoveryCodes.codeHash });
  return rows.length === 1;
}

/** Step-ups made before the second factor came into force no longer count. */
export async function clearStepUps(db: DatabaseOrTransaction, userId: string): Promise<void> {
  await db.update(dashboardSessions).set({ steppedUpAt: null }).where(eq(dashboardSessions.userId, userId));
}
