import { formatCrypto } from './money';

// Decisions §11: a merchant's settled transactions as CSV (RFC 4180, CRLF line ends). Amounts are
// decimal strings with 6 places, as everywhere in the API; a cell that a spreadsheet would run as a
// formula is prefixed with an apostrophe (CSV injection): the order id is the merchant's own text.

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
  /** Decisions §14: fiat_to_crypto or crypto_transfer, and the provider (empty for a wallet payment). */
  railType: string;
  provider: string | null;
  /** `orderId ?? merchantOrderId` of the session, as the API answers it; null when the merchant gave none. */
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
  // Issue 31 item 7: an accountant matches a line to the shop's order without looking the payment up.
  'order_id',
] as const;

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

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
  ]);
  return [[...SETTLEMENT_COLUMNS], ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
