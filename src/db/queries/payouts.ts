import { and, asc, eq, getTableColumns, gte, inArray, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import type { Posting } from '../../domain/ledger';
import { violatedUniqueConstraint } from '../../domain/sql-errors';
import type { DatabaseOrTransaction } from '../client';
import { ledgerEntries, payoutItems, payouts } from '../schema';
import { placeholderRows, placeholderValue, preparedFor } from './prepared';

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
const KIND_ORDER = sql.join(
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

/**
 * The confirmation, written only if the row is not confirmed yet and still carries `txHash`: the
 * update takes the row's lock and re-checks both after any writer before it, so one caller confirms
 * (and posts) and the others get nothing back.
 */
export async function confirmPayoutOnce(
  tx: DatabaseOrTransaction,
  id: string,
  txHash: string,
  changes: Partial<NewPayout>,
): Promise<PayoutRow | undefined> {
  const [row] = await tx
    .update(payouts)
    .set({ ...changes, status: 'confirmed' })
    .where(and(eq(payouts.id, id), eq(payouts.txHash, txHash), ne(payouts.status, 'confirmed')))
    .returning();
  return row;
}

/**
 * confirmPayoutOnce and its ledger postings in one statement, which commits or fails whole like the
 * transaction it replaces: the postings are written only if this call confirmed the row (still unconfirmed,
 * still carrying `txHash`), so one caller posts and the others change nothing. The ledger's balance
 * check runs at its commit as at any other. Returns whether this call confirmed it.
 */
export async function confirmPayoutAndPost(
  db: DatabaseOrTransaction,
  input: {
    id: string;
    txHash: string;
    changes: { blockNumber: string; feeWei: string; confirmedAt: Date };
    postings: Posting[];
  },
): Promise<boolean> {
  const lines = input.postings.flatMap((posting) =>
    posting.lines.map((l, i) => ({
      posting_id: posting.postingId,
      line: i + 1,
      account: l.account,
      asset: posting.asset,
      network: posting.network,
      amount: l.amount.toString(),
      payment_id: posting.paymentId,
      tx_hash: posting.txHash,
    })),
  );
  const { changes } = input;
  const rows = await db.execute<{ id: string }>(sql`
    with confirmed as (
      update ${payouts} set status = 'confirmed', block_number = ${changes.blockNumber}::numeric, fee_wei = ${changes.feeWei}::numeric,
        confirmed_at = ${changes.confirmedAt.toISOString()}::timestamptz
      where id = ${input.id} and tx_hash = ${input.txHash} and status <> 'confirmed'
      returning id
    ), posted as (
      insert into ${ledgerEntries} (posting_id, line, account, asset, network, amount, payment_id, tx_hash)
      select e.posting_id, e.line, e.account, e.asset, e.network, e.amount, e.payment_id, e.tx_hash
      from jsonb_to_recordset(${JSON.stringify(lines)}::jsonb)
        as e(posting_id text, line int, account text, asset text, network text, amount numeric, payment_id text, tx_hash text)
      where exists (select 1 from confirmed)
      on conflict (posting_id, line) do nothing
      returning 1
    )
    select id from confirmed`);
  return rows.length > 0;
}

/** The row under lock, so one signer at a time decides whether it still needs a signature. */
export async function lockPayout(tx: DatabaseOrTransaction, id: string): Promise<PayoutRow | undefined> {
  const [row] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
  return row;
}

export async function updatePayout(db: DatabaseOrTransaction, id: string, changes: Partial<NewPayout>): Promise<void> {
  await db.update(payouts).set(changes).where(eq(payouts.id, id));
}

/** A signed payout's bytes were sent: three times a payment, built once per process (prepared.ts). */
export async function markPayoutBroadcast(db: DatabaseOrTransaction, id: string, at: Date): Promise<void> {
  const query = preparedFor(db, 'mark_payout_broadcast', () =>
    db
      .update(payouts)
      .set({ status: 'broadcast', broadcastAt: placeholderValue('at') })
      .where(eq(payouts.id, sql.placeholder('id')))
      .prepare('mark_payout_broadcast'),
  );
  await query.execute({ id, at });
}

/**
 * The sender's next free nonce. `chainNext` is the chain's pending count: a nonce the
 * chain has already used (another wallet sending from the same key) is never handed out. Above it, a
 * nonce is held only by a signed payout of ours (mined nowhere yet, to be sent or re-sent with its
 * bytes; after a reorg deeper than the confirmations, mined payouts come back to
 * this), and one past the highest such nonce is free: never one in between, which would be taken
 * twice, nor one further, which would wait behind a gap forever.
 *
 * Read without a lock: two signers may read the same nonce, and the payouts' unique (network,
 * sender, nonce) lets only one of them store it (storeSignedPayout); the other reads again.
 * a signature is two statements, where a transaction holding an allocator row's lock while the worker
 * signed was four.
 */
export async function nextFreeNonce(
  db: DatabaseOrTransaction,
  input: { network: string; sender: string; chainNext: number },
): Promise<number> {
  const query = preparedFor(db, 'next_free_nonce', () =>
    db
      .select({ highest: sql<number | null>`max(${payouts.nonce})` })
      .from(payouts)
      .where(
        and(
          eq(payouts.network, sql.placeholder('network')),
          eq(payouts.fromAddress, sql.placeholder('sender')),
          gte(payouts.nonce, sql.placeholder('chainNext')),
        ),
      )
      .prepare('next_free_nonce'),
  );
  const [held] = await query.execute({ network: input.network, sender: input.sender, chainNext: input.chainNext });
  return held?.highest === null || held?.highest === undefined ? input.chainNext : Number(held.highest) + 1;
}

/** Another payout of the sender stored this nonce first (storeSignedPayout): sign again with the next free one. */
export class NonceTaken extends Error {
  constructor(readonly nonce: number) {
    super(`nonce ${nonce} was taken by another payout of its sender`);
  }
}

/** What a signature stores on its payout (storeSignedPayout). */
const SIGNED_FIELDS = ['signedTx', 'txHash', 'gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'signedAt'] as const;

/**
 * A signed payout stored with its nonce, in one statement, only if the row still needs this signature
 * (not failed; unsigned, or still carrying the transaction it replaces): otherwise nothing is returned.
 * Throws NonceTaken when another payout of the sender stored the nonce first (nextFreeNonce).
 */
export async function storeSignedPayout(
  db: DatabaseOrTransaction,
  input: {
    id: string;
    replacing: string | null;
    nonce: number;
    changes: Pick<NewPayout, (typeof SIGNED_FIELDS)[number]>;
  },
): Promise<PayoutRow | undefined> {
  // Once per signature: built once per process for a first signature and once for a replacement (prepared.ts).
  const replacing = input.replacing !== null;
  const name = replacing ? 'store_signed_payout_replacing' : 'store_signed_payout';
  const query = preparedFor(db, name, () => {
    const changes = Object.fromEntries(SIGNED_FIELDS.map((f) => [f, placeholderValue(f)]));
    return db
      .update(payouts)
      .set({
        ...changes,
        nonce: placeholderValue('nonce'),
        status: 'signed',
        ...(replacing ? { replacedHashes: sql`array_append(${payouts.replacedHashes}, ${sql.placeholder('replacing')}::text)` } : {}),
      })
      .where(
        and(
          eq(payouts.id, sql.placeholder('id')),
          ne(payouts.status, 'failed'),
          replacing ? sql`(${payouts.signedTx} is null or ${payouts.txHash} = ${sql.placeholder('replacing')})` : isNull(payouts.signedTx),
        ),
      )
      .returning()
      .prepare(name);
  });
  try {
    const [row] = await query.execute({
      ...input.changes,
      nonce: input.nonce,
      id: input.id,
      ...(replacing ? { replacing: input.replacing } : {}),
    });
    return row;
  } catch (err) {
    if (violatedUniqueConstraint(err) === 'payouts_sender_nonce_unique') throw new NonceTaken(input.nonce);
    throw err;
  }
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

/**
 * The network's payouts confirmed within the last `hours` (still `confirmed`, or
 * set back to `broadcast` after their block left the chain: `confirmed_at` stays set, as their ledger
 * postings do), in sending order per sender (sweeps first, then by nonce), at most `limit`.
 */
export async function listRecentlyConfirmedPayouts(
  db: DatabaseOrTransaction,
  network: string,
  hours: number,
  limit: number,
): Promise<PayoutRow[]> {
  if (hours <= 0) return [];
  return db
    .select()
    .from(payouts)
    .where(
      and(
        eq(payouts.network, network),
        inArray(payouts.status, ['confirmed', 'broadcast']),
        isNotNull(payouts.signedTx),
        isNotNull(payouts.confirmedAt),
        sql`${payouts.confirmedAt} > now() - make_interval(secs => ${hours * 3600})`,
      ),
    )
    .orderBy(KIND_ORDER, asc(payouts.nonce))
    .limit(limit);
}

/**
 * A confirmed payout whose transaction left the chain with its block: `broadcast` again, with the same
 * signed bytes (one nonce, one hash: it can be mined once at most). `confirmed_at` and the ledger
 * postings of its confirmation stay: the same transaction is what goes out. Only from `confirmed` with
 * this hash, so one caller reopens it.
 */
export async function reopenReorgedPayout(db: DatabaseOrTransaction, id: string, txHash: string): Promise<PayoutRow | undefined> {
  const [row] = await db
    .update(payouts)
    .set({ status: 'broadcast' })
    .where(and(eq(payouts.id, id), eq(payouts.txHash, txHash), eq(payouts.status, 'confirmed')))
    .returning();
  return row;
}

/** A reopened payout (broadcast, confirmed before) still carrying `txHash`, under lock: one caller settles its transaction mined again. */
export async function lockReopenedPayout(tx: DatabaseOrTransaction, id: string, txHash: string): Promise<PayoutRow | undefined> {
  const [row] = await tx
    .select()
    .from(payouts)
    .where(and(eq(payouts.id, id), eq(payouts.txHash, txHash), eq(payouts.status, 'broadcast'), isNotNull(payouts.confirmedAt)))
    .for('update');
  return row;
}

/** Whether `txHash` is a transaction the platform signed for a payout (any of its signatures). */
export async function isPayoutTransaction(db: DatabaseOrTransaction, txHash: string): Promise<boolean> {
  const hash = txHash.toLowerCase();
  const [row] = await db
    .select({ id: payouts.id })
    .from(payouts)
    .where(or(eq(payouts.txHash, hash), sql`${hash} = any(${payouts.replacedHashes})`))
    .limit(1);
  return row !== undefined;
}
