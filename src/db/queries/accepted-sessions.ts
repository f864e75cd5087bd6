import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions } from '../schema';

/** Statuses from which an operator may accept money that arrived late or short. */
export const ACCEPTABLE_FROM = ['pending', 'processing', 'expired', 'canceled'] as const;

/**
 * An operator's acceptance completes the session even after it expired or was canceled: the one
 * move the domain's table does not make by itself, made only here and only by an acceptance.
 */
export async function completeAcceptedSession(db: DatabaseOrTransaction, id: string, completedAt: Date): Promise<boolean> {
  const rows = await db
    .update(checkoutSessions)
    .set({ status: 'completed', completedAt, updatedAt: sql`now()` })
    .where(and(eq(checkoutSessions.id, id), inArray(checkoutSessions.status, [...ACCEPTABLE_FROM])))
    .returning({ id: checkoutSessions.id });
  return rows.length > 0;
}
