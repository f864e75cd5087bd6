import { and, desc, eq, getTableColumns, inArray, ne, sql } from 'drizzle-orm';
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

/**
 * Locks the link's row for the rest of the transaction: the step that lets one of its sessions start
 * taking money is one at a time per link, so two tabs pressing Pay together cannot both pass.
 */
export async function lockPaymentLink(
  tx: DatabaseOrTransaction,
  id: string,
): Promise<Pick<PaymentLinkRow, 'status' | 'paidSessionId'> | undefined> {
  const [row] = await tx
    .select({ status: paymentLinks.status, paidSessionId: paymentLinks.paidSessionId })
    .from(paymentLinks)
    .where(eq(paymentLinks.id, id))
    .for('update');
  return row;
}

/**
 * Marks the link paid by `sessionId`, at most once. An expired link still becomes
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

/** A merchant's link with how many sessions customers opened of it and how many completed. */
export type MerchantLinkRow = PaymentLinkRow & { sessions: number; completed: number };

const sessionCounts = {
  sessions: sql<number>`(select count(*)::int from checkout_sessions s where s.payment_link_id = payment_links.id)`,
  completed: sql<number>`(select count(*)::int from checkout_sessions s where s.payment_link_id = payment_links.id and s.status = 'completed')`,
};

/** A merchant's links, newest first. */
export async function listMerchantLinks(db: DatabaseOrTransaction, merchantId: string, limit: number): Promise<MerchantLinkRow[]> {
  return db
    .select({ ...getTableColumns(paymentLinks), ...sessionCounts })
    .from(paymentLinks)
    .where(eq(paymentLinks.merchantId, merchantId))
    .orderBy(desc(paymentLinks.createdAt), desc(paymentLinks.id))
    .limit(limit);
}

/** One of the merchant's links; another merchant's is not found. */
export async function findMerchantLink(db: DatabaseOrTransaction, merchantId: string, id: string): Promise<MerchantLinkRow | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(paymentLinks), ...sessionCounts })
    .from(paymentLinks)
    .where(and(eq(paymentLinks.merchantId, merchantId), eq(paymentLinks.id, id)));
  return row;
}

/**
 * Ends an active link of the merchant's now: it expires at this moment, so its page refuses a new
 * session exactly as after its own expiry. Answers whether it was active.
 */
export async function deactivatePaymentLink(db: DatabaseOrTransaction, merchantId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(paymentLinks)
    .set({ status: 'expired', expiresAt: sql`least(${paymentLinks.expiresAt}, now())`, updatedAt: sql`now()` })
    .where(and(eq(paymentLinks.merchantId, merchantId), eq(paymentLinks.id, id), eq(paymentLinks.status, 'active')))
    .returning({ id: paymentLinks.id });
  return rows.length > 0;
}
