import { and, asc, eq, getTableColumns, inArray, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { payoutItems, payouts } from '../schema';
import { placeholderRows, preparedFor } from './prepared';

// Payouts planned, read and failed. Signing and broadcast are payout-signing.ts; the chain's
// confirmation and reorgs payout-confirmations.ts.

export type PayoutRow = typeof payouts.$inferSelect;
export type NewPayout = typeof payouts.$inferInsert;

// Kinds in the order a plan's payouts are sent: a sweep before the payouts that spend what it moved.
// One table for both the queries' ORDER BY and rows already in hand (a plan's insert).
const SENDING_RANK: Record<PayoutRow['kind'], number> = {
  sweep: 0,
  merchant: 1,
  customer: 1,
  payment_refund: 1,
  refund: 1,
};
export const KIND_ORDER = sql.join(
  [
    sql`case ${payouts.kind}`,
    ...Object.entries(SENDING_RANK).map(([kind, rank]) => sql`when ${kind} then ${sql.raw(String(rank))}`),
    sql`end`,
  ],
  sql` `,
);
const bySendingOrder = (a: PayoutRow, b: PayoutRow) => SENDING_RANK[a.kind] - SENDING_RANK[b.kind];
/** Rows in hand in the order the queries' KIND_ORDER gives (sorted in place). */
export const sortBySendingOrder = (rows: PayoutRow[]): PayoutRow[] => rows.sort(bySendingOrder);

/**
 * One plan's payouts (the payment's settlement, or one exception's refund), planned once: rows already
 * there win, so a retried plan returns them unchanged. All rows share the payment and the exception
 * (or the completed payment's refund).
 */
export async function insertPayoutsOnce(db: DatabaseOrTransaction, rows: NewPayout[]): Promise<PayoutRow[]> {
  if (rows.length === 0) return [];
  // A settlement's plan (three rows), a refund's: built once per process for each shape (prepared.ts).
  const { shape, placeholders, values } = placeholderRows(rows);
  const name = `insert_payouts ${shape}`;
  const query = preparedFor(db, name, () =>
    db
      .insert(payouts)
      .values(placeholders)
      .onConflictDoNothing({ target: [payouts.paymentId, payouts.kind, payouts.exceptionId, payouts.refundId, payouts.attempt] })
      .returning()
      .prepare(name),
  );
  const inserted = await query.execute(values);
  // All new (the common case): one round trip, in sending order. A repeat reads what the first plan wrote.
  if (inserted.length === rows.length) return sortBySendingOrder(inserted);
  const exceptionId = rows[0]!.exceptionId ?? null;
  const refundId = rows[0]!.refundId ?? null;
  if (refundId) return db.select().from(payouts).where(eq(payouts.refundId, refundId)).orderBy(KIND_ORDER);
  return exceptionId ? listRefundPayouts(db, exceptionId) : listPayouts(db, rows[0]!.paymentId);
}

/** The payment's own payouts (its settlement), without the refunds of its exceptions or of the payment itself. */
export async function listPayouts(db: DatabaseOrTransaction, paymentId: string): Promise<PayoutRow[]> {
  return db
    .select()
    .from(payouts)
    .where(and(eq(payouts.paymentId, paymentId), isNull(payouts.exceptionId), isNull(payouts.refundId)))
    .orderBy(KIND_ORDER);
}

/** Every payout of a payment: its settlement, then the refunds of its exceptions (operators' view). */
/**
 * Every payout of a payment, for operators and the merchant's timeline: its own (a refund, a simple
 * order's payout) and the settlement runs' rows that carried its money (a sweep of its deposit, the
 * merchant's payout of its share), those first, each with the payment's part of it (`part`, null for
 * the payment's own rows).
 */
export async function listAllPayouts(db: DatabaseOrTransaction, paymentId: string): Promise<(PayoutRow & { part: string | null })[]> {
  return db
    .select({ ...getTableColumns(payouts), part: payoutItems.amount })
    .from(payouts)
    .leftJoin(
      payoutItems,
      and(eq(payoutItems.payoutId, payouts.id), eq(payoutItems.paymentId, paymentId), ne(payouts.paymentId, paymentId)),
    )
    .where(or(eq(payouts.paymentId, paymentId), isNotNull(payoutItems.paymentId)))
    .orderBy(sql`${payouts.exceptionId} asc nulls first`, asc(payouts.attempt), KIND_ORDER, asc(payouts.createdAt));
}

/**
 * An exception's refund: the latest attempt's rows (its transfer back, forwarded from the deposit
 * address by the sweeper). Earlier attempts failed; they stay in listAllPayouts for operators.
 */
export async function listRefundPayouts(db: DatabaseOrTransaction, exceptionId: string): Promise<PayoutRow[]> {
  const latest = db
    .select({ attempt: sql`max(${payouts.attempt})` })
    .from(payouts)
    .where(eq(payouts.exceptionId, exceptionId));
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
  await db
    .update(payouts)
    .set({ status: 'failed', failureReason: reason })
    .where(and(inArray(payouts.id, ids), eq(payouts.status, 'planned')));
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

/** The row under lock, so one signer at a time decides whether it still needs a signature. */
export async function lockPayout(tx: DatabaseOrTransaction, id: string): Promise<PayoutRow | undefined> {
  const [row] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
  return row;
}

export async function updatePayout(db: DatabaseOrTransaction, id: string, changes: Partial<NewPayout>): Promise<void> {
  await db.update(payouts).set(changes).where(eq(payouts.id, id));
}

/**
 * Token units a sender's planned payouts have yet to move: a new plan must leave them covered.
 * `excludingSettlementOf` leaves out a payment's own settlement (the plan being checked).
 */
export async function outgoingUnconfirmed(
  db: DatabaseOrTransaction,
  network: string,
  sender: string,
  token: string,
  excludingSettlementOf?: string,
): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${payouts.amount})::text` })
    .from(payouts)
    .where(
      and(
        eq(payouts.network, network),
        eq(payouts.fromAddress, sender),
        eq(payouts.token, token),
        inArray(payouts.status, ['planned', 'signed', 'broadcast']),
        excludingSettlementOf === undefined
          ? undefined
          : sql`not (${payouts.paymentId} = ${excludingSettlementOf} and ${payouts.exceptionId} is null and ${payouts.refundId} is null)`,
      ),
    );
  return BigInt(row?.total ?? 0);
}

/**
 * Marks payouts failed with a reason, but only those no transaction of which can be under way: a
 * planned row (nothing signed), and `refusedSigned` if it is still signed (its broadcast was refused
 * just now). A broadcast row is left alone: only its receipt decides. The refused transaction's
 * nonce is given back (its hash kept in replaced_hashes): the node never took it, and a nonce held by
 * a failed row would leave every later transaction of the sender behind a gap. Returns the rows it changed.
 */
export async function failPayouts(
  db: DatabaseOrTransaction,
  ids: string[],
  reason: string,
  refusedSigned: string | null = null,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const failable = refusedSigned
    ? sql`(${payouts.status} = 'planned' or (${payouts.id} = ${refusedSigned} and ${payouts.status} = 'signed'))`
    : sql`${payouts.status} = 'planned'`;
  const rows = await db
    .update(payouts)
    .set({
      status: 'failed',
      failureReason: reason,
      nonce: null,
      signedTx: null,
      txHash: null,
      signedAt: null,
      replacedHashes: sql`case when ${payouts.txHash} is null then ${payouts.replacedHashes} else array_append(${payouts.replacedHashes}, ${payouts.txHash}) end`,
    })
    .where(and(inArray(payouts.id, ids), failable))
    .returning({ id: payouts.id });
  return rows.map((r) => r.id);
}

/** Payouts in a status (or all), oldest first, at most `limit` (operators). */
export async function listPayoutsByStatus(
  db: DatabaseOrTransaction,
  status: PayoutRow['status'] | undefined,
  limit: number,
): Promise<PayoutRow[]> {
  return (
    db
      .select()
      .from(payouts)
      // A cleared failed row waits for nobody (schema/payouts.ts): not in the failed queue.
      .where(
        status === 'failed' ? and(eq(payouts.status, status), isNull(payouts.clearedAt)) : status ? eq(payouts.status, status) : undefined,
      )
      .orderBy(asc(payouts.createdAt), asc(payouts.id))
      .limit(limit)
  );
}

/**
 * An operator's retry of a payment's failed settlement: its failed rows go back to where sending
 * resumes. Exactly once holds because only a transaction that cannot be mined is ever replaced: a
 * row never signed is planned again (nothing of it can be on chain); a reverted row (its block
 * recorded) is planned again without its transaction, whose nonce the revert used up (the hash kept
 * in replaced_hashes); a row signed but not known to be reverted keeps its exact bytes and is sent
 * again as they are (one nonce: at most one of its sends is ever mined).
 */
export async function reopenFailedSettlement(
  db: DatabaseOrTransaction,
  paymentId: string,
  refundId: string | null = null,
): Promise<PayoutRow[]> {
  const reverted = sql`${payouts.signedTx} is not null and ${payouts.blockNumber} is not null`;
  return db
    .update(payouts)
    .set({
      status: sql`case when ${payouts.signedTx} is null or (${reverted}) then 'planned' else 'signed' end`,
      failureReason: null,
      signedTx: sql`case when ${reverted} then null else ${payouts.signedTx} end`,
      txHash: sql`case when ${reverted} then null else ${payouts.txHash} end`,
      nonce: sql`case when ${reverted} then null else ${payouts.nonce} end`,
      replacedHashes: sql`case when ${reverted} then array_append(${payouts.replacedHashes}, ${payouts.txHash}) else ${payouts.replacedHashes} end`,
      feeWei: sql`case when ${reverted} then null else ${payouts.feeWei} end`,
      blockNumber: sql`case when ${reverted} then null else ${payouts.blockNumber} end`,
      signedAt: sql`case when ${reverted} then null else ${payouts.signedAt} end`,
      broadcastAt: sql`case when ${reverted} then null else ${payouts.broadcastAt} end`,
    })
    .where(
      and(
        eq(payouts.paymentId, paymentId),
        isNull(payouts.exceptionId),
        refundId ? eq(payouts.refundId, refundId) : isNull(payouts.refundId),
        eq(payouts.status, 'failed'),
      ),
    )
    .returning();
}
