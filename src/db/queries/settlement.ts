import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { payoutItems, payouts } from '../schema';
import { balanceAccount, merchantBalance, outgoingPlanned, refundDraw, type MerchantBalance } from '../../domain/balances';
import { NETWORKS } from '../../domain/assets';
import { AppError } from '../../domain/errors';
import { writePostings } from './ledger';
import type { NewPayout, PayoutRow } from './payouts';

// Batched settlement's reads and writes (docs/settlement.md): which deposits a sweep takes, which
// payments a merchant's payout pays. Planned under the network's settlement lock, so two runs (or two
// attempts of one) never put a payment in two live sweeps or two live payouts.

/**
 * A network's name or a whole number written into a settlement statement instead of sent as a
 * parameter. These statements are large (unions, joins, correlated counts): given a parameter,
 * Postgres finds its custom plan cheaper than the generic one every time and plans them again on each
 * call, milliseconds of CPU, and the due check runs every payout interval. A prepared statement without
 * parameters is planned once per connection. Only a known network's name or an integer goes in,
 * checked here, so each statement has a few shapes (one per network).
 */
function literal(value: string | number): SQL {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`settlement statements take whole numbers, not ${value}`);
    return sql.raw(String(value));
  }
  if (!(NETWORKS as readonly string[]).includes(value)) throw new Error(`unknown network ${JSON.stringify(value)}`);
  return sql.raw(`'${value}'`);
}

/** Serialises the planning of a network's sweeps and payouts until the caller's transaction ends. */
export async function lockSettlement(tx: DatabaseOrTransaction, network: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`settlement:${network}`}, 0))`);
}

/**
 * Sweeps a deposit may fail in before runs leave it to an operator: a deposit the chain refuses for
 * good (a frozen address) then no longer fails every batch it is in.
 */
export const SWEEP_ATTEMPTS = 3;

export interface SweepableDeposit {
  paymentId: string;
  asset: string;
  depositAddress: string;
  depositIndex: number;
  amountMicro: bigint;
}

/** The query of sweepableDeposits, for `network` (a parameter, or a column of an outer query). */
const sweepableSql = (network: SQL) => sql`
    select e.payment_id, e.asset, d.address, d.derivation_index, e.amount
      from (
      select e.id, e.payment_id, e.asset, e.account, e.amount
        from transactions t
        join ledger_entries e on e.posting_id = 'completion:' || t.payment_id and e.account like 'deposit:%'
       where t.network = ${network}
         and t.status = 'completed' and t.payout_id is null
         and exists (select 1 from ledger_entries m
                      where m.posting_id = e.posting_id and m.account like 'merchant:%:pending')
      union all
      select f.id, f.payment_id, f.asset, 'deposit:' || o.chain_deposit_address, -f.amount
        from ledger_entries f
        join simple_orders o on o.transaction_code = f.payment_id
       where f.network = ${network}
         and f.posting_id = 'network_fee:' || f.payment_id
         and f.account = 'network_fee_revenue'
         and exists (select 1 from payouts c where c.payment_id = f.payment_id and c.kind = 'customer' and c.status = 'confirmed')
      union all
      -- A merchant's top-up, each confirmed log on its own (its arrival posting's id is the item's key).
      select e.id, e.posting_id, e.asset, e.account, e.amount
        from deposit_addresses t
        join ledger_entries e on e.account = 'deposit:' || t.address and e.payment_id = t.payment_reference
       where t.network = ${network}
         and t.payment_reference like 'topup:%'
         and e.network = ${network}
         and e.posting_id like 'arrival:%'
         and e.amount > 0
         and not exists (select 1 from ledger_entries l where l.posting_id = e.posting_id || ':left')
      ) e
      join deposit_addresses d on e.account = 'deposit:' || d.address
     where not exists (select 1 from payout_items i join payouts p on p.id = i.payout_id
                        where i.payment_id = e.payment_id and p.kind = 'sweep' and p.status <> 'failed')
       and (select count(*) from payout_items i join payouts p on p.id = i.payout_id
             where i.payment_id = e.payment_id and p.kind = 'sweep' and p.status = 'failed' and p.cleared_at is null) < ${literal(SWEEP_ATTEMPTS)}
     order by e.id
`;

/**
 * The money of `network` still at deposit addresses that is the platform's to move: a completed
 * payment's gross (its completion credited a merchant's balance: a `merchant:…:pending` line), a
 * settled simple order's network fee once the customer's payout is confirmed (the rest of its money
 * went to the customer), and a merchant's top-up (credited to its balance when it was confirmed). Each not taken by a live sweep, and with fewer than SWEEP_ATTEMPTS failed
 * sweeps since an operator's retry. Oldest first. Money held for an exception stays where it is.
 */
export async function sweepableDeposits(tx: DatabaseOrTransaction, network: string, limit: number): Promise<SweepableDeposit[]> {
  const rows = await tx.execute<{ payment_id: string; asset: string; address: string; derivation_index: number; amount: string }>(
    sql`${sweepableSql(literal(network))} limit ${literal(limit)}`,
  );
  return rows.map((r) => ({
    paymentId: r.payment_id,
    asset: r.asset,
    depositAddress: r.address,
    depositIndex: Number(r.derivation_index),
    amountMicro: BigInt(r.amount),
  }));
}

export interface HeldShare {
  paymentId: string;
  merchantId: string;
  asset: string;
  amountMicro: bigint;
}

/** The query of heldShares, for `network` (a parameter, or a column of an outer query). */
const heldSql = (network: SQL, holdSeconds: number) => sql`
    select m.payment_id, t.merchant_id, m.asset, (-m.amount)::text as amount
      from transactions t
      join ledger_entries m on m.posting_id = 'completion:' || t.payment_id and m.account = 'merchant:' || t.merchant_id || ':pending'
     where t.network = ${network}
       and t.status = 'completed' and t.payout_id is null
       and t.completed_at <= now() - make_interval(secs => ${literal(holdSeconds)})
       and not exists (select 1 from ledger_entries r where r.posting_id = 'released:' || m.payment_id)
     order by m.id`;

/** Shares of `network`'s payments still pending whose payment completed `holdSeconds` ago or earlier. */
export async function heldShares(tx: DatabaseOrTransaction, network: string, holdSeconds: number): Promise<HeldShare[]> {
  const rows = await tx.execute<{ payment_id: string; merchant_id: string; asset: string; amount: string }>(
    sql`${heldSql(literal(network), holdSeconds)} limit 500`,
  );
  return rows.map((r) => ({ paymentId: r.payment_id, merchantId: r.merchant_id, asset: r.asset, amountMicro: BigInt(r.amount) }));
}

/**
 * Payouts a payment may fail in before runs leave it to an operator: a transfer the chain refuses for
 * good (a wallet the token blocks) is not planned again every run, nor its gas spent again.
 */
export const PAYOUT_ATTEMPTS = 3;

export interface PayablePayment {
  paymentId: string;
  merchantId: string;
  asset: string;
  walletAddress: string;
  shareMicro: bigint;
}

/** The query of payablePayments, for `network` (a parameter, or a column of an outer query). */
const payableSql = (network: SQL) => sql`
    select t.payment_id, t.merchant_id, t.destination_asset as asset, t.wallet_address, t.merchant_settlement_micro as share
      from transactions t
      join payout_items si on si.payment_id = t.payment_id
      join payouts s on s.id = si.payout_id and s.kind = 'sweep' and s.status = 'confirmed' and s.network = ${network}
     where t.network = ${network}
       and t.status = 'completed' and t.payout_id is null
       and not exists (select 1 from payout_items i join payouts p on p.id = i.payout_id
                        where i.payment_id = si.payment_id and p.kind = 'merchant' and p.status <> 'failed')
       -- Its hold has passed: a held share is not the merchant's to be paid yet.
       and exists (select 1 from ledger_entries r where r.posting_id = 'released:' || si.payment_id)
       and (select count(*) from payout_items i join payouts p on p.id = i.payout_id
             where i.payment_id = si.payment_id and p.kind = 'merchant' and p.status = 'failed' and p.cleared_at is null) < ${literal(PAYOUT_ATTEMPTS)}
     order by t.merchant_id, si.payment_id`;

/**
 * Payments of `network` whose sweep is confirmed (the treasury holds their money), whose share is
 * released, that no live payout pays yet, and that fewer than PAYOUT_ATTEMPTS payouts failed to pay
 * since an operator's retry.
 */
export async function payablePayments(tx: DatabaseOrTransaction, network: string): Promise<PayablePayment[]> {
  const rows = await tx.execute<{ payment_id: string; merchant_id: string; asset: string; wallet_address: string; share: string }>(
    payableSql(literal(network)),
  );
  return rows.map((r) => ({
    paymentId: r.payment_id,
    merchantId: r.merchant_id,
    asset: r.asset,
    walletAddress: r.wallet_address,
    shareMicro: BigInt(r.share),
  }));
}

/** The ledger balance (debit positive) of `account` in one network and asset. */
export async function accountBalance(tx: DatabaseOrTransaction, account: string, network: string, asset: string): Promise<bigint> {
  const [row] = await tx.execute<{ total: string | null }>(
    sql`select sum(amount) as total from ledger_entries where account = ${account} and network = ${network} and asset = ${asset}`,
  );
  return BigInt(row?.total ?? 0);
}

export interface PayoutItem {
  paymentId: string;
  depositAddress?: string | null;
  depositIndex?: number | null;
  amountMicro: bigint;
}

/** A batched payout (a sweep, a merchant's payout) and what it settles, in the caller's transaction. */
export async function insertSettlementPayout(tx: DatabaseOrTransaction, row: NewPayout, items: PayoutItem[]): Promise<PayoutRow> {
  const [inserted] = await tx.insert(payouts).values(row).returning();
  await tx.insert(payoutItems).values(
    items.map((i) => ({
      payoutId: inserted!.id,
      paymentId: i.paymentId,
      depositAddress: i.depositAddress ?? null,
      depositIndex: i.depositIndex ?? null,
      amount: i.amountMicro.toString(),
    })),
  );
  return inserted!;
}

/** Items of a payout already written (a forwarded refund's deposit), unless written before. */
export async function insertPayoutItemsOnce(tx: DatabaseOrTransaction, payoutId: string, items: PayoutItem[]): Promise<void> {
  await tx
    .insert(payoutItems)
    .values(
      items.map((i) => ({
        payoutId,
        paymentId: i.paymentId,
        depositAddress: i.depositAddress ?? null,
        depositIndex: i.depositIndex ?? null,
        amount: i.amountMicro.toString(),
      })),
    )
    .onConflictDoNothing();
}

/** What a batched payout settles. */
export async function listPayoutItems(
  db: DatabaseOrTransaction,
  payoutId: string,
): Promise<(PayoutItem & { merchantId: string | null })[]> {
  const rows = await db.execute<{
    payment_id: string;
    deposit_address: string | null;
    deposit_index: number | null;
    amount: string;
    merchant_id: string | null;
  }>(
    sql`select i.payment_id, i.deposit_address, i.deposit_index, i.amount, s.merchant_id
          from payout_items i left join checkout_sessions s on s.id = i.payment_id
         where i.payout_id = ${payoutId} order by i.payment_id`,
  );
  return rows.map((r) => ({
    paymentId: r.payment_id,
    depositAddress: r.deposit_address,
    depositIndex: r.deposit_index,
    amountMicro: BigInt(r.amount),
    merchantId: r.merchant_id,
  }));
}

/**
 * Of `networks`, those where a settlement run has something to do (one statement, whatever their
 * number): a sweep or payout a run left unfinished, a deposit to sweep, a payment to pay, and with a
 * hold (`holdSeconds` above 0) a share whose hold has passed. The same queries as the run's own, asked
 * whether they find anything; without parameters, so a connection plans it once (see `literal`).
 */
export async function settlementDueNetworks(db: DatabaseOrTransaction, networks: string[], holdSeconds: number): Promise<string[]> {
  if (networks.length === 0) return [];
  const network = sql`n.network`;
  const rows = await db.execute<{ network: string }>(sql`
    select n.network from (values ${sql.join(
      networks.map((name) => sql`(${literal(name)})`),
      sql`, `,
    )}) as n(network)
     where exists (select 1 from payouts p
                    where p.network = n.network and p.payment_id = p.id and p.status in ('planned', 'signed', 'broadcast'))
        or exists (${sweepableSql(network)})
        or exists (${payableSql(network)})
        ${holdSeconds > 0 ? sql`or exists (${heldSql(network, holdSeconds)})` : sql``}`);
  return rows.map((r) => r.network);
}

/** The batched payouts of `network` not yet confirmed nor failed: a run finishes them before it plans more. */
export async function unfinishedSettlementPayouts(db: DatabaseOrTransaction, network: string): Promise<PayoutRow[]> {
  return db
    .select()
    .from(payouts)
    .where(
      and(eq(payouts.network, network), eq(payouts.paymentId, payouts.id), inArray(payouts.status, ['planned', 'signed', 'broadcast'])),
    )
    .orderBy(payouts.createdAt);
}

/** A merchant's balance in one network and asset (domain/balances.ts), from the ledger. */
export async function merchantBalanceOf(
  tx: DatabaseOrTransaction,
  merchantId: string,
  network: string,
  asset: string,
): Promise<MerchantBalance> {
  // Exact account names: a LIKE pattern's underscore would match any character of the id.
  const accounts = Object.values(balanceAccount)
    .filter((account) => typeof account === 'function')
    .map((account) => account(merchantId));
  const rows = await tx.execute<{ account: string; total: string }>(sql`
    select account, sum(amount)::text as total from ledger_entries
     where account in (${sql.join(
       accounts.map((a) => sql`${a}`),
       sql`, `,
     )})
       and network = ${network} and asset = ${asset}
     group by account`);
  const totals = new Map(rows.map((r) => [r.account, BigInt(r.total)]));
  return merchantBalance(merchantId, (account) => totals.get(account) ?? 0n);
}

/** What a refund's live draw took (its latest `outgoing:` posting not failed back), and that draw's id. */
export async function refundDrawOf(
  tx: DatabaseOrTransaction,
  refundId: string,
): Promise<{ outgoingId: string; fromAvailable: bigint; fromReserved: bigint } | null> {
  const rows = await tx.execute<{ posting_id: string; account: string; amount: string }>(sql`
    select posting_id, account, amount::text from ledger_entries
     where posting_id like ${`outgoing:${refundId}%`} order by id`);
  const planned = [...new Set(rows.map((r) => r.posting_id))].filter((id) => !id.endsWith(':failed') && !id.endsWith(':confirmed'));
  const live = planned.find((id) => !rows.some((r) => r.posting_id === `${id}:failed`));
  if (!live) return null;
  const line = (suffix: string) => rows.find((r) => r.posting_id === live && r.account.endsWith(suffix));
  return {
    outgoingId: live.slice('outgoing:'.length),
    fromAvailable: BigInt(line(':available')?.amount ?? 0),
    fromReserved: BigInt(line(':reserved')?.amount ?? 0),
  };
}

/** The id of a refund's next draw: its own id first, then `#2`, `#3`… after each one failed back. */
export async function nextRefundDrawId(tx: DatabaseOrTransaction, refundId: string): Promise<string> {
  const [row] = await tx.execute<{ n: number }>(
    sql`select count(distinct posting_id)::int as n from ledger_entries where posting_id like ${`outgoing:${refundId}%:failed`}`,
  );
  const failed = row?.n ?? 0;
  return failed === 0 ? refundId : `${refundId}#${failed + 1}`;
}

/**
 * A refund drawn on the merchant's balance: `available` first, then `reserved`, into `outgoing`
 * (domain/balances.ts refundDraw). More than both hold is 409 InsufficientBalance, naming what they
 * hold: the platform's own money never pays a merchant's refund. The caller holds the merchant's lock.
 */
export async function drawForRefund(
  tx: DatabaseOrTransaction,
  input: { merchantId: string; network: string; asset: string; refundId: string; paymentId: string; requestedMicro: bigint },
): Promise<void> {
  const balance = await merchantBalanceOf(tx, input.merchantId, input.network, input.asset);
  const draw = refundDraw({
    asset: input.asset,
    availableMicro: balance.available,
    reservedMicro: balance.reserved,
    requestedMicro: input.requestedMicro,
  });
  if (!draw.ok) throw new AppError('InsufficientBalance', draw.message);
  const outgoingId = await nextRefundDrawId(tx, input.refundId);
  await writePostings(tx, [outgoingPlanned({ ...input, outgoingId, fromAvailable: draw.fromAvailable, fromReserved: draw.fromReserved })]);
}

/** When the merchant's latest live batched payout of `network` and `asset` was planned (null: never). */
export async function lastSettlementPayoutAt(
  tx: DatabaseOrTransaction,
  input: { merchantId: string; network: string; asset: string },
): Promise<Date | null> {
  const [row] = await tx.execute<{ at: string | null }>(sql`
    select max(p.created_at)::text as at from payouts p
     where p.kind = 'merchant' and p.payment_id = p.id and p.status <> 'failed'
       and p.network = ${input.network} and p.asset = ${input.asset}
       and exists (select 1 from payout_items i join checkout_sessions s on s.id = i.payment_id
                    where i.payout_id = p.id and s.merchant_id = ${input.merchantId})`);
  return row?.at ? new Date(row.at) : null;
}

/**
 * Failed settlement rows of `kind` that carried any payment `payoutId` carries, no longer waiting for
 * an operator: a later row carried the payments (`payoutId` confirmed), or the operator retried. They
 * stay failed (what happened on chain); the attempts bound and the failed queue skip them. Returns
 * the rows cleared now.
 */
export async function clearFailedSettlementRows(
  tx: DatabaseOrTransaction,
  payoutId: string,
  kind: 'sweep' | 'merchant',
): Promise<string[]> {
  const rows = await tx.execute<{ id: string }>(sql`
    update payouts set cleared_at = now()
     where kind = ${kind} and status = 'failed' and cleared_at is null
       and id in (select o.payout_id from payout_items o
                   where o.payment_id in (select payment_id from payout_items where payout_id = ${payoutId}))
    returning id`);
  return rows.map((r) => r.id);
}

/** The merchant a settlement payout pays (its payments' merchant), or null for a row that pays no known payment. */
export async function merchantPaidBy(db: DatabaseOrTransaction, payoutId: string): Promise<string | null> {
  const [row] = await db.execute<{ merchant_id: string }>(sql`
    select s.merchant_id from payout_items i join checkout_sessions s on s.id = i.payment_id where i.payout_id = ${payoutId} limit 1`);
  return row?.merchant_id ?? null;
}
