import { csvLine } from './csv';
import { formatCrypto } from './money';
import { paidWithText, RAIL_CRYPTO_TRANSFER } from './payment-labels';

// A merchant's settled transactions as CSV (RFC 4180, CRLF line ends). Amounts are
// decimal strings with 6 places, as everywhere in the API; cells are escaped by csv.ts.

export interface SettlementLine {
  paymentId: string;
  asset: string;
  network: string;
  grossMicro: bigint;
  commissionMicro: bigint;
  netMicro: bigint;
  depositTransactionHash: string | null;
  payoutTransactionHash: string;
  completedAt: Date | null;
  settledAt: Date;
  /** Fiat_to_crypto or crypto_transfer, and the provider (empty for a wallet payment). */
  railType: string;
  provider: string | null;
  /** `orderId ?? merchantOrderId` of the session, so an accountant matches a line to the shop's order; null when none was given. */
  orderId: string | null;
}

export const SETTLEMENT_COLUMNS = [
  'payment_id',
  'asset',
  'network',
  'gross',
  'commission',
  'net',
  'deposit_tx',
  'payout_tx',
  'completed_at',
  'settled_at',
  // Added last, so that a reader of the earlier columns by position is not broken.
  'rail_type',
  'provider',
  'order_id',
  'paid_with',
] as const;

export function settlementsCsv(lines: readonly SettlementLine[]): string {
  const rows = lines.map((l) => [
    l.paymentId,
    l.asset,
    l.network,
    formatCrypto(l.grossMicro),
    formatCrypto(l.commissionMicro),
    formatCrypto(l.netMicro),
    l.depositTransactionHash ?? '',
    l.payoutTransactionHash,
    l.completedAt?.toISOString() ?? '',
    l.settledAt.toISOString(),
    l.railType,
    l.provider ?? '',
    l.orderId ?? '',
    // A settled payment completed, so its rail alone says how it was paid.
    paidWithText(l.railType === RAIL_CRYPTO_TRANSFER ? 'wallet' : 'provider', l.provider),
  ]);
  return [[...SETTLEMENT_COLUMNS], ...rows].map(csvLine).join('');
}
