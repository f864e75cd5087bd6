import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { chainCredits } from '../schema';
import { preparedFor } from './prepared';
import { depositLogKey } from '../../domain/deposit-fact';
import { arrivalPostingPrefix, exceptionLogLeft } from '../../domain/ledger';
import { reverseArrivals, writePosting } from './ledger';
import { findOpenExceptionHoldingLog } from './payment-exceptions';

// Transfers into deposit addresses, each log held by one payment: recorded, taken back by a reorg,
// mined again in another block. The addresses a watcher reads are watched-addresses.ts, where its
// scan stands chain-cursors.ts.

export type ChainCreditRow = typeof chainCredits.$inferSelect;

/** A confirmed Transfer into a deposit address, as the watcher read it (amounts in micro units). */
export interface CreditInput {
  network: string;
  transactionHash: string;
  logIndex: number;
  /** Null: a token contract this deployment does not configure. */
  asset: string | null;
  token: string;
  from: string;
  to: string;
  amountMicro: bigint;
  blockNumber: bigint;
  blockHash: string;
}

export type CreditRowState = ChainCreditRow['state'];

/** What recording a log did: whether this payment holds it, and whether this is news (a log never recorded, or back after a reorg removed it). */
export interface CreditOutcome {
  held: boolean;
  fresh: boolean;
  state: CreditRowState;
  /** A log new to the table: the payment's credited logs with it (listCredits), read by the insert's statement. */
  credits?: ChainCreditRow[];
}

interface RawCredit extends Record<string, unknown> {
  network: string;
  transaction_hash: string;
  log_index: number;
  payment_id: string;
  asset: string | null;
  token: string;
  from_address: string;
  to_address: string;
  amount_micro: string | bigint;
  block_number: string | bigint;
  block_hash: string;
  state: CreditRowState;
  created_at: Date | string;
  updated_at: Date | string;
}

const creditOf = (r: RawCredit): ChainCreditRow => ({
  network: r.network,
  transactionHash: r.transaction_hash,
  logIndex: Number(r.log_index),
  paymentId: r.payment_id,
  asset: r.asset,
  token: r.token,
  fromAddress: r.from_address,
  toAddress: r.to_address,
  amountMicro: BigInt(r.amount_micro),
  blockNumber: BigInt(r.block_number),
  blockHash: r.block_hash,
  state: r.state,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/**
 * Records `log` for `paymentId` as `state` unless another payment holds it. A log seen again in the
 * same block is the same news (a watcher re-sends after a crash): its first record stands. A log
 * back after a reorg removed it is news again, recorded as `state`; one that moved to another block
 * keeps its state with the new block. A log held by another payment is never moved (the primary key
 * and the WHERE decide).
 */
export async function creditLog(
  db: DatabaseOrTransaction,
  paymentId: string,
  log: CreditInput,
  state: Exclude<CreditRowState, 'removed'> = 'credited',
): Promise<CreditOutcome> {
  const key = and(
    eq(chainCredits.network, log.network),
    eq(chainCredits.transactionHash, log.transactionHash.toLowerCase()),
    eq(chainCredits.logIndex, log.logIndex),
  );
  // A new log (the common case) in one statement: the insert first, the row read only when it was there.
  const values = {
    network: log.network,
    transactionHash: log.transactionHash.toLowerCase(),
    logIndex: log.logIndex,
    paymentId,
    asset: log.asset,
    token: log.token,
    fromAddress: log.from,
    toAddress: log.to,
    amountMicro: log.amountMicro,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    state,
  };
  // A new log (the common case), and with it the payment's credits as they now stand, in one statement:
  // the caller decides on them under the payment's lock without reading them again. The statement's
  // own read does not see its insert, so the new row comes from the insert's RETURNING.
  const written = await db.execute<RawCredit & { fresh: boolean }>(sql`
    with ins as (
      insert into ${chainCredits} (network, transaction_hash, log_index, payment_id, asset, token, from_address, to_address,
        amount_micro, block_number, block_hash, state)
      values (${values.network}, ${values.transactionHash}, ${values.logIndex}, ${paymentId}, ${values.asset}, ${values.token},
        ${values.fromAddress}, ${values.toAddress}, ${values.amountMicro.toString()}, ${values.blockNumber.toString()},
        ${values.blockHash}, ${state})
      on conflict do nothing
      returning *
    )
    select ins.*, true as fresh from ins
    union all
    select c.*, false as fresh from ${chainCredits} c
    where c.payment_id = ${paymentId} and c.state = 'credited' and exists (select 1 from ins)`);
  if (written.some((r) => r.fresh)) {
    const credits = written
      .map(creditOf)
      .filter((c) => c.state === 'credited')
      .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    return { held: true, fresh: true, state, credits };
  }
  // Recorded before (a re-sent log, one back after a reorg), or meanwhile by a concurrent call.
  const [existing] = await db
    .select({ paymentId: chainCredits.paymentId, state: chainCredits.state, blockHash: chainCredits.blockHash })
    .from(chainCredits)
    .where(key);
  if (!existing) return { held: false, fresh: false, state };
  if (existing.paymentId !== paymentId) return { held: false, fresh: false, state: existing.state };
  if (existing.state !== 'removed' && existing.blockHash === log.blockHash) return { held: true, fresh: false, state: existing.state };
  const next = existing.state === 'removed' ? state : existing.state;
  await db
    .update(chainCredits)
    .set({ state: next, blockNumber: log.blockNumber, blockHash: log.blockHash, updatedAt: sql`now()` })
    .where(and(key, eq(chainCredits.paymentId, paymentId)));
  return { held: true, fresh: existing.state === 'removed', state: next };
}

/**
 * The log's block left the canonical chain: it no longer counts for its payment. If its arrival was
 * posted (an exception's money, or dust), that posting is reversed in the same transaction, as is its
 * share of an open exception holding it with other logs (exceptionLogLeft): the deposit address no
 * longer holds it, and an exception whose money left can be neither refunded nor accepted (both ask
 * the ledger what it holds).
 */
export async function uncreditLog(
  db: DatabaseOrTransaction,
  paymentId: string,
  key: { network: string; transactionHash: string; logIndex: number },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(chainCredits)
      .set({ state: 'removed', updatedAt: sql`now()` })
      .where(
        and(
          eq(chainCredits.network, key.network),
          eq(chainCredits.transactionHash, key.transactionHash.toLowerCase()),
          eq(chainCredits.logIndex, key.logIndex),
          eq(chainCredits.paymentId, paymentId),
          ne(chainCredits.state, 'removed'),
        ),
      )
      .returning();
    const removed = rows[0];
    if (!removed) return false;
    await reverseArrivals(tx, paymentId, arrivalPostingPrefix(key));
    // Money held with other logs' by one exception (an underpaid payment's end): this log's share leaves it.
    const logKey = depositLogKey(removed);
    const asset = removed.asset;
    const holder = asset === null ? undefined : await findOpenExceptionHoldingLog(tx, paymentId, logKey);
    if (holder && asset !== null) {
      const { toAddress: depositAddress, network, transactionHash: txHash, amountMicro } = removed;
      await writePosting(
        tx,
        exceptionLogLeft({ exceptionId: holder.id, logKey, paymentId, depositAddress, asset, network, txHash, amountMicro }),
      );
    }
    return true;
  });
}

/** The payment's credited logs become an exception's money (held): they no longer count towards its G. */
export async function holdCredits(db: DatabaseOrTransaction, paymentId: string): Promise<void> {
  await db
    .update(chainCredits)
    .set({ state: 'held', updatedAt: sql`now()` })
    .where(and(eq(chainCredits.paymentId, paymentId), eq(chainCredits.state, 'credited')));
}

/** The payment's credited logs (its own token's money; never a wrong asset or dust), oldest block first. */
export async function listCredits(db: DatabaseOrTransaction, paymentId: string): Promise<ChainCreditRow[]> {
  // Under every credit's lock: built once per process (prepared.ts).
  const query = preparedFor(db, 'list_credits', () =>
    db
      .select()
      .from(chainCredits)
      .where(and(eq(chainCredits.paymentId, sql.placeholder('paymentId')), eq(chainCredits.state, 'credited')))
      .orderBy(chainCredits.blockNumber, chainCredits.logIndex)
      .prepare('list_credits'),
  );
  return query.execute({ paymentId });
}

/** Every log ever credited to the payment, removed ones included (an operator's view of the proof). */
export async function listCreditHistory(db: DatabaseOrTransaction, paymentId: string): Promise<ChainCreditRow[]> {
  return db
    .select()
    .from(chainCredits)
    .where(eq(chainCredits.paymentId, paymentId))
    .orderBy(chainCredits.blockNumber, chainCredits.logIndex);
}

export const totalOf = (credits: readonly ChainCreditRow[]) => credits.reduce((sum, c) => sum + c.amountMicro, 0n);

/**
 * The network's logs that count (credited, or an exception's wrong asset) recorded
 * within the last `hours`, highest block first (the freshest are the likeliest to be taken back), at
 * most `limit`: what the watcher re-checks against the chain after their confirmation.
 */
export async function listRecentCredits(
  db: DatabaseOrTransaction,
  network: string,
  hours: number,
  limit: number,
): Promise<ChainCreditRow[]> {
  if (hours <= 0) return [];
  return db
    .select()
    .from(chainCredits)
    .where(
      and(
        eq(chainCredits.network, network),
        inArray(chainCredits.state, ['credited', 'held', 'wrong_asset']),
        sql`${chainCredits.createdAt} > now() - make_interval(secs => ${hours * 3600})`,
      ),
    )
    .orderBy(desc(chainCredits.blockNumber), chainCredits.logIndex)
    .limit(limit);
}

/** The same log, mined again in another block after a reorg: it keeps its state with the new block. */
export async function moveCredit(
  db: DatabaseOrTransaction,
  key: { network: string; transactionHash: string; logIndex: number },
  block: { blockNumber: bigint; blockHash: string },
): Promise<void> {
  await db
    .update(chainCredits)
    .set({ blockNumber: block.blockNumber, blockHash: block.blockHash, updatedAt: sql`now()` })
    .where(
      and(
        eq(chainCredits.network, key.network),
        eq(chainCredits.transactionHash, key.transactionHash.toLowerCase()),
        eq(chainCredits.logIndex, key.logIndex),
        ne(chainCredits.state, 'removed'),
      ),
    );
}

/** Who sent the latest transfer seen at a payment's deposit address, whatever became of it. */
export async function latestSender(db: DatabaseOrTransaction, paymentId: string): Promise<string | null> {
  const [row] = await db
    .select({ from: chainCredits.fromAddress })
    .from(chainCredits)
    .where(eq(chainCredits.paymentId, paymentId))
    .orderBy(desc(chainCredits.blockNumber), desc(chainCredits.createdAt))
    .limit(1);
  return row?.from ?? null;
}
