import { getTableColumns, sql } from 'drizzle-orm';
import { ledgerAccount } from '../../domain/ledger';
import type { DatabaseOrTransaction } from '../client';
import { chainCredits, checkoutSessions, depositAddresses, payouts, transactions } from '../schema';
import { refundDebtOf } from './payment-refunds';
import { listPayouts, sortBySendingOrder, type NewPayout, type PayoutRow } from './payouts';

// Issue 32: the statements of a settlement's plan (activities/payout-plan.ts), each one round trip
// with a fixed text: what the plan reads before it writes, the checks before pricing, and the pricing.

/** What a session's settlement is planned from, read at once. */
export interface SessionPayoutBasis {
  merchantId: string;
  network: string;
  asset: string;
  walletAddress: string;
  depositAddress: string | null;
  /** The deposit address's derivation index (its signer), when the address is ours. */
  depositIndex: number | null;
  transaction: { status: string; merchantSettlementMicro: bigint | null; platformCommissionMicro: bigint | null } | null;
  /** Whether the settlement has rows already (a retried plan returns them). */
  planned: boolean;
  /** The merchant's refund debt not yet covered in the session's asset and network (outstandingRefundDebt). */
  refundDebtMicro: bigint;
}

/**
 * The session, its transaction, its deposit address's index, whether its settlement is planned, and
 * its merchant's outstanding refund debt, in one statement: before issue 32 a read of each (four,
 * and two more in the sending for the merchant and the signer).
 */
export async function sessionPayoutBasis(db: DatabaseOrTransaction, paymentId: string): Promise<SessionPayoutBasis | undefined> {
  const [row] = await db.execute<{
    merchant_id: string;
    network: string;
    asset: string;
    wallet_address: string;
    deposit_address: string | null;
    deposit_index: number | null;
    transaction_status: string | null;
    merchant_settlement_micro: string | null;
    platform_commission_micro: string | null;
    planned: boolean;
    refund_debt: string;
  }>(sql`
    select s.merchant_id, s.network, s.destination_asset as asset, s.wallet_address, s.deposit_address,
      a.derivation_index as deposit_index, t.status as transaction_status,
      t.merchant_settlement_micro::text as merchant_settlement_micro, t.platform_commission_micro::text as platform_commission_micro,
      exists (select 1 from ${payouts} p where p.payment_id = s.id and p.exception_id is null and p.refund_id is null) as planned,
      ${refundDebtOf({
        merchantId: sql`s.merchant_id`,
        // ledgerAccount.merchantDebt of the session's merchant.
        debtAccount: sql`${ledgerAccount.merchantDebt('')} || s.merchant_id`,
        asset: sql`s.destination_asset`,
        network: sql`s.network`,
      })}::text as refund_debt
    from ${checkoutSessions} s
    left join ${transactions} t on t.payment_id = s.id
    left join ${depositAddresses} a on a.address = s.deposit_address
    where s.id = ${paymentId}`);
  if (!row) return undefined;
  const micro = (v: string | null) => (v === null ? null : BigInt(v));
  return {
    merchantId: row.merchant_id,
    network: row.network,
    asset: row.asset,
    walletAddress: row.wallet_address,
    depositAddress: row.deposit_address,
    depositIndex: row.deposit_index,
    transaction: row.transaction_status
      ? {
          status: row.transaction_status,
          merchantSettlementMicro: micro(row.merchant_settlement_micro),
          platformCommissionMicro: micro(row.platform_commission_micro),
        }
      : null,
    planned: row.planned,
    refundDebtMicro: BigInt(row.refund_debt),
  };
}

/**
 * Before a settlement's transfers are priced (decisions §14), in one statement: what other payouts
 * from its sender have yet to move of the token (outgoingUnconfirmed, leaving out this settlement),
 * and the payment's confirmed credits of it against what its payouts send (creditsAgainstPayouts'
 * rule: chain_credits credited or held; every payout of it but a refund's and a reverted one).
 */
export async function settlementCover(
  db: DatabaseOrTransaction,
  input: { paymentId: string; network: string; sender: string; token: string },
): Promise<{ othersMicro: bigint; credited: bigint; paidOut: bigint }> {
  const { paymentId, network, sender, token } = input;
  const [row] = await db.execute<{ others: string; credited: string; paid_out: string }>(sql`select
    (select coalesce(sum(o.amount), 0)::text from ${payouts} o
      where o.network = ${network} and o.from_address = ${sender} and o.token = ${token}
        and o.status in ('planned', 'signed', 'broadcast')
        and not (o.payment_id = ${paymentId} and o.exception_id is null and o.refund_id is null)) as others,
    (select coalesce(sum(c.amount_micro), 0)::text from ${chainCredits} c
      where c.payment_id = ${paymentId} and c.network = ${network}
        and lower(c.token) = lower(${token}) and c.state in ('credited', 'held')) as credited,
    (select coalesce(sum(p.amount), 0)::text from ${payouts} p
      where p.payment_id = ${paymentId} and p.network = ${network} and lower(p.token) = lower(${token})
        and p.refund_id is null and not (p.status = 'failed' and p.block_number is not null)) as paid_out`);
  return { othersMicro: BigInt(row?.others ?? 0), credited: BigInt(row?.credited ?? 0), paidOut: BigInt(row?.paid_out ?? 0) };
}

const PAYOUT_COLUMNS = Object.entries(getTableColumns(payouts));

/** A payouts row as the driver returned it (a raw statement's), as drizzle would have mapped it. */
function payoutFromDriver(raw: Record<string, unknown>): PayoutRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of PAYOUT_COLUMNS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as PayoutRow;
}

/** A priced transfer's terms, as stored. */
export interface PayoutTerms {
  id: string;
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/**
 * A settlement's transfers priced, with the gas row for them when there is one, all or nothing, in
 * one statement (issue 32; it was a transaction of a lock, an update per row, the gas row's insert
 * and a read): the rows are locked and written only if every one of them is still planned and
 * unpriced (a concurrent attempt that priced them first wins, as under the transaction's lock); a gas
 * row already there stays as it is. Returns the settlement's rows as they then stand, in sending order.
 */
export async function priceSettlement(
  db: DatabaseOrTransaction,
  input: { paymentId: string; terms: PayoutTerms[]; gas: NewPayout[] },
): Promise<PayoutRow[]> {
  const terms = input.terms.map((t) => ({
    id: t.id,
    gas_limit: t.gasLimit,
    max_fee_per_gas: t.maxFeePerGas,
    max_priority_fee_per_gas: t.maxPriorityFeePerGas,
  }));
  const gas = input.gas.map((g) => {
    // A settlement's own row: no exception, no refund, the first attempt (the columns' defaults).
    if (g.paymentId !== input.paymentId || g.exceptionId || g.refundId || (g.attempt ?? 1) !== 1)
      throw new Error(`payout ${g.id} is not of ${input.paymentId}'s settlement`);
    return {
      id: g.id,
      payment_id: g.paymentId,
      kind: g.kind,
      network: g.network,
      asset: g.asset,
      token: g.token ?? null,
      from_address: g.fromAddress,
      to_address: g.toAddress,
      amount: g.amount,
      gas_limit: g.gasLimit ?? null,
      max_fee_per_gas: g.maxFeePerGas ?? null,
      max_priority_fee_per_gas: g.maxPriorityFeePerGas ?? null,
    };
  });
  const rows = await db.execute<Record<string, unknown> & { ok: boolean }>(sql`
    with terms as (
      select * from jsonb_to_recordset(${JSON.stringify(terms)}::jsonb)
        as t(id text, gas_limit numeric, max_fee_per_gas numeric, max_priority_fee_per_gas numeric)
    ), locked as (
      select p.id from ${payouts} p join terms on terms.id = p.id
      where p.gas_limit is null and p.status = 'planned'
      for update of p
    ), ready as (
      select (select count(*) from locked) = (select count(*) from terms) as ok
    ), priced as (
      update ${payouts} p set gas_limit = terms.gas_limit, max_fee_per_gas = terms.max_fee_per_gas,
        max_priority_fee_per_gas = terms.max_priority_fee_per_gas
      from terms where p.id = terms.id and (select ok from ready)
      returning p.*
    ), gas as (
      insert into ${payouts} (id, payment_id, kind, network, asset, token, from_address, to_address, amount,
        gas_limit, max_fee_per_gas, max_priority_fee_per_gas)
      select g.id, g.payment_id, g.kind, g.network, g.asset, g.token, g.from_address, g.to_address, g.amount,
        g.gas_limit, g.max_fee_per_gas, g.max_priority_fee_per_gas
      from jsonb_to_recordset(${JSON.stringify(gas)}::jsonb)
        as g(id text, payment_id text, kind text, network text, asset text, token text, from_address text, to_address text,
          amount numeric, gas_limit numeric, max_fee_per_gas numeric, max_priority_fee_per_gas numeric)
      where (select ok from ready)
      on conflict (payment_id, kind, exception_id, refund_id, attempt) do nothing
      returning *
    )
    select ready.ok, plan.* from ready left join (
      select * from priced
      union all select * from gas
      union all select * from ${payouts} o
        where o.payment_id = ${input.paymentId} and o.exception_id is null and o.refund_id is null
          and o.id not in (select id from terms) and o.id not in (select id from gas)
    ) plan on true`);
  // Priced first by another attempt (or changed meanwhile): nothing written here; the rows as they now stand.
  if (!rows[0]?.ok) return listPayouts(db, input.paymentId);
  return sortBySendingOrder(rows.filter((r) => r.id !== null).map(payoutFromDriver));
}
