import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { payouts } from '../schema';
import { NETWORKS } from '../../domain/assets';
import type { PayoutRow } from './payouts';

// Batched settlement's reads and writes (docs/settlement.md): which deposits a sweep takes, which
// payments a merchant's payout pays. Planned under the network's settlement lock, so two runs (or two
// attempts of one) never put a payment in two live sweeps or two live payouts.
// The rows a run writes and reads afterwards are settlement-payouts.ts; the merchant's balances
// merchant-balances.ts.

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
