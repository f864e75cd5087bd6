import { formatCrypto } from './money';

// A merchant's payouts as CSV, escaped by the same csv.ts as the settlements CSV
// (payments/merchant-money.ts writes the lines, a page of rows at a time).
// Amounts are decimal strings with 6 places, as everywhere in the API.

export interface PayoutLine {
  id: string;
  paymentId: string;
  status: string;
  asset: string;
  network: string;
  toAddress: string;
  amountMicro: bigint;
  txHash: string | null;
  failureReason: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
}

export const PAYOUT_COLUMNS = [
  'payout_id',
  'payment_id',
  'status',
  'asset',
  'network',
  'amount',
  'to_address',
  'tx_hash',
  'created_at',
  'confirmed_at',
  'failure_reason',
] as const;

/** One payout's cells, in PAYOUT_COLUMNS' order. */
export function payoutCells(p: PayoutLine): string[] {
  return [
    p.id,
    p.paymentId,
    p.status,
    p.asset,
    p.network,
    formatCrypto(p.amountMicro),
    p.toAddress,
    p.txHash ?? '',
    p.createdAt.toISOString(),
    p.confirmedAt?.toISOString() ?? '',
    p.failureReason ?? '',
  ];
}
