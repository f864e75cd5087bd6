import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { PaymentListPosition } from '../../domain/payment-list';
import type { DatabaseOrTransaction } from '../client';
import { ownedBy } from './merchant-settlements';
import { checkoutSessions, payoutItems, payouts } from '../schema';

// What a merchant reads of their money: the payouts to their wallets and the home
// page's figures. Every query is bound to one merchant id.

export interface MerchantPayoutRow {
  id: string;
  paymentId: string;
  status: 'planned' | 'signed' | 'broadcast' | 'confirmed' | 'failed';
  asset: string;
  network: string;
  toAddress: string;
  amountMicro: bigint;
  txHash: string | null;
  failureReason: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
  /** created_at to the microsecond, for the next page's cursor (as the payment list's). */
  position: string;
}

/**
 * The merchant's own payouts (their net of each payment, to their wallet), newest first, up to
 * `limit` after `after` (none: from the newest): keyset pages on (created_at, id), as the payment list.
 */
export async function listMerchantPayouts(
  db: DatabaseOrTransaction,
  merchantId: string,
  page: { after?: PaymentListPosition | undefined; limit: number },
): Promise<MerchantPayoutRow[]> {
  // A settlement run's payout pays a batch of payments, its items (docs/settlement.md).
  const where = [ownedBy(merchantId), eq(payouts.kind, 'merchant')];
  if (page.after) where.push(sql`(${payouts.createdAt}, ${payouts.id}) < (${page.after.at}::timestamptz, ${page.after.id})`);
  const rows = await db
    .select({
      id: payouts.id,
      // A batch's first payment: the page links one payment per payout.
      paymentId: sql<string>`coalesce((select min(i.payment_id) from payout_items i where i.payout_id = ${payouts.id}), ${payouts.paymentId})`,
      status: payouts.status,
      asset: payouts.asset,
      network: payouts.network,
      toAddress: payouts.toAddress,
      amount: payouts.amount,
      txHash: payouts.txHash,
      failureReason: payouts.failureReason,
      createdAt: payouts.createdAt,
      confirmedAt: payouts.confirmedAt,
      position: sql<string>`to_char(${payouts.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(payouts)
    .where(and(...where))
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(page.limit);
  return rows.map(({ amount, ...r }) => ({ ...r, amountMicro: BigInt(amount) }));
}

/** One payment a payout paid: the merchant's share of it the payout carried. */
export interface PayoutPayment {
  paymentId: string;
  amountMicro: bigint;
}

/**
 * The payments each of these payouts paid, only the merchant's, in payment id order: a settlement
 * run's payout names them in payout_items (docs/settlement.md). A payout made before settlement runs
 * has no items (it paid its own payment_id alone) and is absent from the map.
 */
export async function payoutPayments(
  db: DatabaseOrTransaction,
  merchantId: string,
  payoutIds: string[],
): Promise<Map<string, PayoutPayment[]>> {
  const byPayout = new Map<string, PayoutPayment[]>();
  if (payoutIds.length === 0) return byPayout;
  const rows = await db
    .select({ payoutId: payoutItems.payoutId, paymentId: payoutItems.paymentId, amount: payoutItems.amount })
    .from(payoutItems)
    .innerJoin(checkoutSessions, eq(checkoutSessions.id, payoutItems.paymentId))
    .where(and(inArray(payoutItems.payoutId, payoutIds), eq(checkoutSessions.merchantId, merchantId)))
    .orderBy(payoutItems.payoutId, payoutItems.paymentId);
  for (const r of rows) {
    const list = byPayout.get(r.payoutId) ?? [];
    list.push({ paymentId: r.paymentId, amountMicro: BigInt(r.amount) });
    byPayout.set(r.payoutId, list);
  }
  return byPayout;
}

/** Completed volume per UTC day and asset since `from` (gross stablecoin micro units, and payments). */
export async function dailyVolume(
  db: DatabaseOrTransaction,
  merchantId: string,
  from: Date,
): Promise<{ day: string; asset: string; grossMicro: bigint; payments: number }[]> {
  const rows = await db.execute<{ day: string; asset: string; gross: string; payments: number }>(sql`
    select to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD') as day, destination_asset as asset,
      sum(gross_micro)::text as gross, count(*)::int as payments
    from transactions
    where merchant_id = ${merchantId} and status = 'completed' and completed_at >= ${from.toISOString()}
    group by 1, 2 order by 1, 2`);
  return rows.map((r) => ({ day: r.day, asset: r.asset, grossMicro: BigInt(r.gross), payments: Number(r.payments) }));
}

/** How many of the merchant's payments are in each status (sessions whose workflow started). */
export async function paymentsByStatus(db: DatabaseOrTransaction, merchantId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: checkoutSessions.status, n: sql<number>`count(*)::int` })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.merchantId, merchantId))
    .groupBy(checkoutSessions.status);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Exceptions still open on the merchant's payments. */
export async function openExceptionCount(db: DatabaseOrTransaction, merchantId: string): Promise<number> {
  const [row] = await db.execute<{ n: number }>(sql`
    select count(*)::int as n from payment_exceptions e join checkout_sessions s on s.id = e.payment_id
    where s.merchant_id = ${merchantId} and e.status = 'open'`);
  return Number(row?.n ?? 0);
}
