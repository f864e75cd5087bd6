import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { paymentLinks } from '../schema';

export type PaymentLinkRow = typeof paymentLinks.$inferSelect;

export async function insertPaymentLink(db: DatabaseOrTransaction, row: typeof paymentLinks.$inferInsert): Promise<PaymentLinkRow> {
  const [inserted] = await db.insert(paymentLinks).values(row).returning();
  return inserted!;
}

export async function findPaymentLink(db: DatabaseOrTransaction, id: string): Promise<PaymentLinkRow | undefined> {
  return (await findPaymentLinks(db, [id]))[0];
}

/** The links among `ids` that exist (the live status streams read every watched link at once). */
export async function findPaymentLinks(db: DatabaseOrTransaction, ids: readonly string[]): Promise<PaymentLinkRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(paymentLinks)
    .where(inArray(paymentLinks.id, [...ids]));
}

/** Removes a link whose workflow could not be started, so no link exists that would never expire. */
export async function deletePaymentLink(db: DatabaseOrTransaction, id: string): Promise<void> {
  await db
    .delete(paymentLinks)
    .where(and(eq(paymentLinks.id, id), eq(paymentLinks.status, 'active'), sql`${paymentLinks.paidSessionId} is null`));
}

/**
 * Marks the link paid by `sessionId`, at most once (decisions §5). An expired link still becomes
 * paid: its session was opened while the link was open, and the customer's money did arrive.
 * 'duplicate' means another session paid it first; a retry by the same session is 'paid' again.
 * The row lock of the update serialises two completions of one link.
 */
export async function markLinkPaid(db: DatabaseOrTransaction, id: string, sessionId: string): Promise<'paid' | 'duplicate' | 'missing'> {
  const updated = await db
    .update(paymentLinks)
    .set({ status: 'paid', paidSessionId: sessionId, updatedAt: sql`now()` })
    .where(and(eq(paymentLinks.id, id), ne(paymentLinks.status, 'paid')))
    .returning({ id: paymentLinks.id });
  if (updated.length > 0) return 'paid';
  const link = await findPaymentLink(db, id);
  if (!link) return 'missing';
  return link.paidSessionId === sessionId ? 'paid' : 'duplicate';
}

/** Expires an open link; returns the status the link has afterwards. */
export async function expirePaymentLink(db: DatabaseOrTransaction, id: string): Promise<PaymentLinkRow['status'] | null> {
  await db
    .update(paymentLinks)
    .set({ status: 'expired', updatedAt: sql`now()` })
    .where(and(eq(paymentLinks.id, id), eq(paymentLinks.status, 'active')));
  return (await findPaymentLink(db, id))?.status ?? null;
}
