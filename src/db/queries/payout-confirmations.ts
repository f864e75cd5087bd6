import { and, asc, eq, inArray, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { Posting } from '../../domain/ledger';
import type { DatabaseOrTransaction } from '../client';
import { ledgerEntries, payouts } from '../schema';
import { KIND_ORDER, type NewPayout, type PayoutRow } from './payouts';

// What the chain says of a sent payout: its confirmation (with its ledger postings, once), and a
// confirmed payout's transaction taken back by a reorg and mined again.

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
