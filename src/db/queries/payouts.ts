import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { payoutNonces, payouts } from '../schema';

export type PayoutRow = typeof payouts.$inferSelect;
export type NewPayout = typeof payouts.$inferInsert;

// Kinds in the order a payment's payouts are sent: gas first, then the deposit address's transfers.
// One table for both the queries' ORDER BY and rows already in hand (a plan's insert).
const SENDING_RANK: Record<PayoutRow['kind'], number> = { gas: 0, merchant: 1, customer: 1, commission: 2, refund: 2, network_fee: 2 };
const KIND_ORDER = sql.join([
  sql`case ${payouts.kind}`,
  ...Object.entries(SENDING_RANK).map(([kind, rank]) => sql`when ${kind} then ${sql.raw(String(rank))}`),
  sql`end`,
], sql` `);
const bySendingOrder = (a: PayoutRow, b: PayoutRow) => SENDING_RANK[a.kind] - SENDING_RANK[b.kind];

/**
 * One plan's payouts (the payment's settlement, or one exception's refund), planned once: rows already
 * there win, so a retried plan returns them unchanged. All rows share the payment and the exception.
 */
export async function insertPayoutsOnce(db: DatabaseOrTransaction, rows: NewPayout[]): Promise<PayoutRow[]> {
  if (rows.length === 0) return [];
  const inserted = await db.insert(payouts).values(rows).onConflictDoNothing({ target: [payouts.paymentId, payouts.kind, payouts.exceptionId, payouts.attempt] }).returning();
  // All new (the common case): one round trip, in sending order. A repeat reads what the first plan wrote.
  if (inserted.length === rows.length) return inserted.sort(bySendingOrder);
  const exceptionId = rows[0]!.exceptionId ?? null;
  return exceptionId ? listRefundPayouts(db, exceptionId) : listPayouts(db, rows[0]!.paymentId);
}

/** The payment's own payouts (its settlement), without the refunds of its exceptions. */
export async function listPayouts(db: DatabaseOrTransaction, paymentId: string): Promise<PayoutRow[]> {
  return db.select().from(payouts).where(and(eq(payouts.paymentId, paymentId), isNull(payouts.exceptionId))).orderBy(KIND_ORDER);
}

/** Every payout of a payment: its settlement, then the refunds of its exceptions (operators' view). */
export async function listAllPayouts(db: DatabaseOrTransaction, paymentId: string): Promise<PayoutRow[]> {
  return db.select().from(payouts).where(eq(payouts.paymentId, paymentId)).orderBy(sql`${payouts.exceptionId} asc nulls first`, asc(payouts.attempt), KIND_ORDER);
}

/**
 * An exception's refund: the latest attempt's rows, its gas (when the deposit address needed some),
 * then the transfer back. Earlier attempts failed; they stay in listAllPayouts for operators.
 */
export async function listRefundPayouts(db: DatabaseOrTransaction, exceptionId: string): Promise<PayoutRow[]> {
  const latest = db.select({ attempt: sql`max(${payouts.attempt})` }).from(payouts).where(eq(payouts.exceptionId, exceptionId));
  return db
    .select()
    .from(payouts)
    .where(and(eq(payouts.exceptionId, exceptionId), eq(payouts.attempt, sql`(${latest})`)))
    .orderBy(KIND_ORDER);
}

/**
 * A refund's transfer that can never be sent now: its row is still `planned` (never signed, so no
 * transaction of it can exist) and becomes `failed` with the reason. Rows already signed are left
 * as they are: their bytes may be on their way to the chain, and only a receipt may fail them.
 */
export async function failUnsentPayouts(db: DatabaseOrTransaction, ids: string[], reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db.update(payouts).set({ status: 'failed', failureReason: reason }).where(and(inArray(payouts.id, ids), eq(payouts.status, 'planned')));
}

export async function findPayout(db: DatabaseOrTransaction, id: string): Promise<PayoutRow | undefined> {
  const [row] = await db.select().from(payouts).where(eq(payouts.id, id));
  return row;
}

/** Planned rows by id, in the order of `ids`. */
export async function findPayouts(db: DatabaseOrTransaction, ids: string[]): Promise<PayoutRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(payouts).where(inArray(payouts.id, ids));
  return ids.flatMap((id) => rows.filter((r) => r.id === id));
}

/**
 * The confirmation, written only if the row is not confirmed yet and still carries `txHash`: the
 * update takes the row's lock and re-checks both after any writer before it, so one caller confirms
 * (and posts) and the others get nothing back.
 */
export async function confirmPayoutOnce(tx: DatabaseOrTransaction, id: string, txHash: string, changes: Partial<NewPayout>): Promise<PayoutRow | undefined> {
  const [row] = await tx
    .update(payouts)
    .set({ ...changes, status: 'confirmed' })
    .where(and(eq(payouts.id, id), eq(payouts.txHash, txHash), ne(payouts.status, 'confirmed')))
    .returning();
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
 * the chain has already used (another wallet sending from the same key) is never handed out. One
 * statement: the upsert locks the row, takes max(stored, chainNext) and stores the one after it.
 */
export async function allocateNonce(tx: DatabaseOrTransaction, input: { network: string; sender: string; chainNext: number }): Promise<number> {
  const [row] = await tx
    .insert(payoutNonces)
    .values({ network: input.network, sender: input.sender, nextNonce: input.chainNext + 1 })
    .onConflictDoUpdate({
      target: [payoutNonces.network, payoutNonces.sender],
      set: { nextNonce: sql`greatest(${payoutNonces.nextNonce}, ${input.chainNext}) + 1`, updatedAt: new Date() },
    })
    .returning({ next: payoutNonces.nextNonce });
  return row!.next - 1;
}

/** Payouts in a status, oldest first (operators, reconciliation). */
export async function payoutsInStatus(db: DatabaseOrTransaction, status: PayoutRow['status']): Promise<PayoutRow[]> {
  return db.select().from(payouts).where(eq(payouts.status, status)).orderBy(asc(payouts.createdAt));
}

/** Token units a sender's planned payouts have yet to move: a new plan must leave them covered. */
export async function outgoingUnconfirmed(db: DatabaseOrTransaction, network: string, sender: string, token: string): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${payouts.amount})::text` })
    .from(payouts)
    .where(and(eq(payouts.network, network), eq(payouts.fromAddress, sender), eq(payouts.token, token), inArray(payouts.status, ['planned', 'signed', 'broadcast'])));
  return BigInt(row?.total ?? 0);
}
