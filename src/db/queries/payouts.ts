import { and, asc, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { payoutNonces, payouts } from '../schema';

export type PayoutRow = typeof payouts.$inferSelect;
export type NewPayout = typeof payouts.$inferInsert;

// Kinds in the order a payment's payouts are sent: gas first, then the deposit address's transfers.
const KIND_ORDER = sql`case ${payouts.kind} when 'gas' then 0 when 'merchant' then 1 else 2 end`;

/** A payment's payouts, planned once: rows already there win (a retried plan returns them unchanged). */
export async function insertPayoutsOnce(db: DatabaseOrTransaction, rows: NewPayout[]): Promise<PayoutRow[]> {
  if (rows.length > 0) await db.insert(payouts).values(rows).onConflictDoNothing({ target: [payouts.paymentId, payouts.kind] });
  return rows.length > 0 ? listPayouts(db, rows[0]!.paymentId) : [];
}

export async function listPayouts(db: DatabaseOrTransaction, paymentId: string): Promise<PayoutRow[]> {
  return db.select().from(payouts).where(eq(payouts.paymentId, paymentId)).orderBy(KIND_ORDER);
}

export async function findPayout(db: DatabaseOrTransaction, id: string): Promise<PayoutRow | undefined> {
  const [row] = await db.select().from(payouts).where(eq(payouts.id, id));
  return row;
}

/** The row under lock, so one signer at a time decides whether it still needs a signature. */
export async function lockPayout(tx: DatabaseOrTransaction, id: string): Promise<PayoutRow | undefined> {
  const [row] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
  return row;
}

export async function updatePayout(db: DatabaseOrTransaction, id: string, changes: Partial<NewPayout>): Promise<void> {
  await db.update(payouts).set(changes).where(eq(payouts.id, id));
}

/**
 * The sender's next nonce, taken under the allocator row's lock (held until the caller's transaction
 * commits, with the signed payout stored in it). `chainNext` is the chain's pending count: a nonce
 * the chain has already used (another wallet sending from the same key) is never handed out.
 */
export async function allocateNonce(tx: DatabaseOrTransaction, input: { network: string; sender: string; chainNext: number }): Promise<number> {
  await tx
    .insert(payoutNonces)
    .values({ network: input.network, sender: input.sender, nextNonce: input.chainNext })
    .onConflictDoNothing({ target: [payoutNonces.network, payoutNonces.sender] });
  const [row] = await tx
    .select()
    .from(payoutNonces)
    .where(and(eq(payoutNonces.network, input.network), eq(payoutNonces.sender, input.sender)))
    .for('update');
  const nonce = Math.max(row!.nextNonce, input.chainNext);
  await tx
    .update(payoutNonces)
    .set({ nextNonce: nonce + 1, updatedAt: new Date() })
    .where(and(eq(payoutNonces.network, input.network), eq(payoutNonces.sender, input.sender)));
  return nonce;
}

/** Payouts in a status, oldest first (operators, reconciliation). */
export async function payoutsInStatus(db: DatabaseOrTransaction, status: PayoutRow['status']): Promise<PayoutRow[]> {
  return db.select().from(payouts).where(eq(payouts.status, status)).orderBy(asc(payouts.createdAt));
}
