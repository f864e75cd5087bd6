import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { payoutItems, payouts } from '../schema';
import type { MerchantBalance } from '../../domain/balances';
import { balanceFromTotals, merchantBalanceSql, type AccountTotal } from './merchant-balances';
import type { NewPayout, PayoutRow } from './payouts';

// A batched settlement payout's rows (docs/settlement.md): the sweep or merchant payout with the
// payments it carries (payout_items), and what a run and an operator read of them afterwards.

export interface PayoutItem {
  paymentId: string;
  depositAddress?: string | null;
  depositIndex?: number | null;
  amountMicro: bigint;
}

/**
 * A batched payout (a sweep, a merchant's payout) and what it settles, in one statement of the
 * caller's transaction: Postgres runs the items' data-modifying WITH whether or not it is read, and
 * checks their reference to the payout once the statement has written both.
 */
export async function insertSettlementPayout(tx: DatabaseOrTransaction, row: NewPayout, items: PayoutItem[]): Promise<PayoutRow> {
  const carried = tx.$with('carried').as(
    tx
      .insert(payoutItems)
      .values(
        items.map((i) => ({
          payoutId: row.id,
          paymentId: i.paymentId,
          depositAddress: i.depositAddress ?? null,
          depositIndex: i.depositIndex ?? null,
          amount: i.amountMicro.toString(),
        })),
      )
      .returning({ paymentId: payoutItems.paymentId }),
  );
  const [inserted] = await tx.with(carried).insert(payouts).values(row).returning();
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

/** When the merchant's latest live batched payout of `network` and `asset` was planned (null: never). */
export async function lastSettlementPayoutAt(tx: DatabaseOrTransaction, input: MerchantPlace): Promise<Date | null> {
  const [row] = await tx.execute<{ at: string | null }>(lastSettlementPayoutSql(input));
  return row?.at ? new Date(row.at) : null;
}

interface MerchantPlace {
  merchantId: string;
  network: string;
  asset: string;
}

const lastSettlementPayoutSql = (input: MerchantPlace) => sql`
    select max(p.created_at)::text as at from payouts p
     where p.kind = 'merchant' and p.payment_id = p.id and p.status <> 'failed'
       and p.network = ${input.network} and p.asset = ${input.asset}
       and exists (select 1 from payout_items i join checkout_sessions s on s.id = i.payment_id
                    where i.payout_id = p.id and s.merchant_id = ${input.merchantId})`;

/**
 * What a settlement run reads of a merchant, under the merchant's lock, before it plans their
 * payout, in one statement: their balance, and when their latest live payout of the network and
 * asset was planned (null: never).
 */
export async function payoutStandingOf(
  tx: DatabaseOrTransaction,
  input: MerchantPlace,
): Promise<{ balance: MerchantBalance; lastPayoutAt: Date | null }> {
  const rows = await tx.execute<AccountTotal & { last_at: string | null }>(sql`
    with totals as (${merchantBalanceSql(input.merchantId, input.network, input.asset)})
    select totals.account, totals.total, last.at as last_at
      from (${lastSettlementPayoutSql(input)}) last left join totals on true`);
  const at = rows[0]?.last_at;
  return { balance: balanceFromTotals(input.merchantId, rows), lastPayoutAt: at ? new Date(at) : null };
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
