import { and, desc, eq, inArray, isNotNull, ne, sql, type SQL } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { chainCredits, chainCursors, checkoutSessions, depositAddresses, simpleOrders } from '../schema';
import { preparedFor } from './prepared';
import { depositLogKey } from '../../domain/deposit-fact';
import { arrivalPostingPrefix, exceptionLogLeft } from '../../domain/ledger';
import { findDepositAddresses } from './deposit-addresses';
import { reverseArrivals, writePosting } from './ledger';
import { findOpenExceptionHoldingLog } from './payment-exceptions';

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
 * Deposit addresses of the network's chain-verified checkout sessions and simple orders in the given
 * statuses (and, with `hours`, whose last change, their end, lies within that many hours), with the
 * payment each belongs to; with `topUps`, the merchants' top-up addresses too (made after
 * `changedSince`, when given), with their reference.
 */
function depositAddressesOf(
  db: DatabaseOrTransaction,
  network: string,
  statuses: { sessions: (typeof checkoutSessions.status.enumValues)[number][]; orders: (typeof simpleOrders.status.enumValues)[number][] },
  hours?: number,
  changedSince?: Date,
  topUps = false,
): Promise<{ paymentId: string; address: string }[]> {
  const within = (updatedAt: typeof checkoutSessions.updatedAt | typeof simpleOrders.updatedAt) =>
    changedSince
      ? sql`${updatedAt} > ${changedSince.toISOString()}::timestamptz`
      : hours === undefined
        ? undefined
        : sql`${updatedAt} > now() - make_interval(secs => ${hours * 3600})`;
  const sessions = db
    .select({ paymentId: checkoutSessions.id, address: sql<string>`${checkoutSessions.depositAddress}` })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.network, network),
        eq(checkoutSessions.verification, 'chain'),
        isNotNull(checkoutSessions.depositAddress),
        inArray(checkoutSessions.status, statuses.sessions),
        within(checkoutSessions.updatedAt),
      ),
    );
  const orders = db
    .select({ paymentId: simpleOrders.transactionCode, address: sql<string>`${simpleOrders.chainDepositAddress}` })
    .from(simpleOrders)
    .where(
      and(
        eq(simpleOrders.walletNetwork, network),
        eq(simpleOrders.verification, 'chain'),
        isNotNull(simpleOrders.chainDepositAddress),
        inArray(simpleOrders.status, statuses.orders),
        within(simpleOrders.updatedAt),
      ),
    );
  // Every merchant's top-up address is watched for good (docs/settlement.md): with the open payments'
  // in a full read, and those made since in a read of what changed. The partial index
  // deposit_addresses_top_up_idx keeps this off the payments' rows.
  if (!topUps) return sessions.unionAll(orders);
  const topUpAddresses = db
    .select({ paymentId: depositAddresses.paymentReference, address: depositAddresses.address })
    .from(depositAddresses)
    .where(
      and(
        eq(depositAddresses.network, network),
        sql`${depositAddresses.paymentReference} like 'topup:%'`,
        changedSince ? sql`${depositAddresses.createdAt} > ${changedSince.toISOString()}::timestamptz` : undefined,
      ),
    );
  return sessions.unionAll(orders).unionAll(topUpAddresses);
}

/** Deposit addresses of the network's open payments and its top-up addresses: what the network's watcher reads transfers to. */
export function listOpenDepositAddresses(db: DatabaseOrTransaction, network: string): Promise<{ paymentId: string; address: string }[]> {
  return depositAddressesOf(
    db,
    network,
    { sessions: ['pending', 'processing'], orders: ['pending', 'processing'] },
    undefined,
    undefined,
    true,
  );
}

/**
 * The deposit addresses of the network's payments whose row changed after `since` (an index range on
 * updated_at, whatever the number of open payments), and the top-up addresses made since: what the
 * watcher adds between full reads. Open
 * payments, and with `ended` the ones that ended (a payment opened and ended between two reads is
 * still watched for late money). A payment gets its address in the insert that creates it, and every
 * write of these rows sets updated_at = now().
 */
export function listDepositAddressesChangedSince(
  db: DatabaseOrTransaction,
  network: string,
  since: Date,
  options: { ended: boolean },
): Promise<{ paymentId: string; address: string }[]> {
  const statuses = options.ended
    ? {
        sessions: ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const,
        orders: ['pending', 'processing', 'settled', 'failed', 'expired'] as const,
      }
    : { sessions: ['pending', 'processing'] as const, orders: ['pending', 'processing'] as const };
  return depositAddressesOf(db, network, { sessions: [...statuses.sessions], orders: [...statuses.orders] }, undefined, since, true);
}

/**
 * When the oldest payment the network's watcher must watch was opened (its open payments, and with
 * `endedWithinHours` those ended that recently), or null when there is none: where a watcher with no
 * cursor yet starts reading, so a payment opened and paid before any watcher ran is still seen.
 */
export async function oldestWatchedPaymentOpenedAt(
  db: DatabaseOrTransaction,
  network: string,
  endedWithinHours: number,
): Promise<Date | null> {
  // Open, or changed (ended) within the late-deposit window.
  const watched = (status: SQL, updatedAt: SQL) =>
    sql`(${status} in ('pending', 'processing') or ${updatedAt} > now() - make_interval(secs => ${Math.max(0, endedWithinHours) * 3600}))`;
  const [row] = await db.execute<{ at: string | null }>(sql`select least(
      (select min(${checkoutSessions.createdAt}) from ${checkoutSessions} where ${and(
        eq(checkoutSessions.network, network),
        eq(checkoutSessions.verification, 'chain'),
        isNotNull(checkoutSessions.depositAddress),
        watched(sql`${checkoutSessions.status}`, sql`${checkoutSessions.updatedAt}`),
      )}),
      (select min(${simpleOrders.createdAt}) from ${simpleOrders} where ${and(
        eq(simpleOrders.walletNetwork, network),
        eq(simpleOrders.verification, 'chain'),
        isNotNull(simpleOrders.chainDepositAddress),
        watched(sql`${simpleOrders.status}`, sql`${simpleOrders.updatedAt}`),
      )})
    ) as at`);
  return row?.at ? new Date(row.at) : null;
}

/**
 * Deposit addresses of the network's payments that ended within the last `hours`, so
 * money that still arrives is seen and owned.
 */
export async function listRecentlyEndedDepositAddresses(
  db: DatabaseOrTransaction,
  network: string,
  hours: number,
): Promise<{ paymentId: string; address: string }[]> {
  if (hours <= 0) return [];
  return depositAddressesOf(
    db,
    network,
    { sessions: ['completed', 'failed', 'expired', 'canceled'], orders: ['settled', 'failed', 'expired'] },
    hours,
  );
}

/**
 * The payment each deposit address belongs to, whatever its kind or status (a transfer may confirm
 * after the payment ended). The payment reference is also its workflow's id.
 */
export async function findDepositOwners(
  db: DatabaseOrTransaction,
  addresses: readonly string[],
): Promise<{ paymentId: string; address: string }[]> {
  const rows = await findDepositAddresses(db, addresses);
  return rows.map((r) => ({ paymentId: r.paymentReference, address: r.address }));
}

export async function loadCursor(db: DatabaseOrTransaction, network: string): Promise<string | undefined> {
  const [row] = await db.select().from(chainCursors).where(eq(chainCursors.network, network));
  return row?.cursor;
}

/** The chain's head as the network's watcher last saw it (null before its first scan): confirmations without an RPC call. */
export async function loadWatchedHead(db: DatabaseOrTransaction, network: string): Promise<bigint | null> {
  const [row] = await db.select({ head: chainCursors.head }).from(chainCursors).where(eq(chainCursors.network, network));
  return row?.head ?? null;
}

/** Stores the cursor, and with `position` where the scan that made it stood (for the lag metric). */
export async function saveCursor(
  db: DatabaseOrTransaction,
  network: string,
  cursor: string,
  position?: { head: bigint; confirmedThrough: bigint },
): Promise<void> {
  const values = { cursor, ...(position ?? {}) };
  await db
    .insert(chainCursors)
    .values({ network, ...values })
    .onConflictDoUpdate({ target: chainCursors.network, set: { ...values, updatedAt: sql`now()` } });
}

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
