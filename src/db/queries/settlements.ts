import { sql } from 'drizzle-orm';
import { paymentLabels } from '../../domain/payment-labels';
import type { SettlementLine } from '../../domain/settlements-csv';
import type { DatabaseOrTransaction } from '../client';

// Timestamps as ISO 8601 text with milliseconds, as JavaScript dates hold them, whatever the driver's type parsing.
const ISO_MS = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

/**
 * A merchant’s settled transactions (docs/settlement.md: the settlement run’s payout that carried the
 * payment's share confirmed) whose payout was confirmed in [from, to), oldest first.
 */
export async function settledTransactions(
  db: DatabaseOrTransaction,
  input: { merchantId: string; from: Date; to: Date },
): Promise<SettlementLine[]> {
  const rows = await db.execute<Record<string, string | null>>(sql`
    select t.payment_id, t.destination_asset, t.network, t.gross_micro::text, t.platform_commission_micro::text,
      t.merchant_settlement_micro::text, t.deposit_transaction_hash, p.tx_hash,
      to_char(t.completed_at at time zone 'UTC', ${ISO_MS}) as completed_at, to_char(p.confirmed_at at time zone 'UTC', ${ISO_MS}) as confirmed_at,
      s.rail_type, s.provider, coalesce(s.order_id, s.merchant_order_id) as order_id
    from transactions t
    join checkout_sessions s on s.id = t.payment_id
    join payout_items i on i.payment_id = t.payment_id
    join payouts p on p.id = i.payout_id and p.kind = 'merchant' and p.status = 'confirmed'
    where t.merchant_id = ${input.merchantId} and t.status = 'completed'
      and p.confirmed_at >= ${input.from.toISOString()} and p.confirmed_at < ${input.to.toISOString()}
    order by p.confirmed_at, t.payment_id`);
  const date = (v: string | null | undefined) => (v === null || v === undefined ? null : new Date(v));
  return rows.map((r) => ({
    paymentId: r.payment_id as string,
    asset: r.destination_asset as string,
    network: r.network as string,
    grossMicro: BigInt(r.gross_micro as string),
    commissionMicro: BigInt(r.platform_commission_micro as string),
    netMicro: BigInt(r.merchant_settlement_micro as string),
    depositTransactionHash: r.deposit_transaction_hash as string | null,
    payoutTransactionHash: r.tx_hash as string,
    completedAt: date(r.completed_at),
    settledAt: date(r.confirmed_at)!,
    ...paymentLabels({ railType: r.rail_type as string, provider: r.provider as string }),
    orderId: r.order_id ?? null,
  }));
}
