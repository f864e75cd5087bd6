import { settlementsCsv, type SettlementLine } from '../domain/settlements-csv';

// Issue 31 item 7: the settlements CSV names each payment's order, so an accountant can match a line
// to the shop's order without looking the payment up. The order id is the merchant's own text, so it
// is the one cell here that may start like a formula or hold a comma: it gets the same RFC 4180
// quoting and formula defusing as the other cells (src/domain/settlements-csv.ts, whose writer is
// being reworked in parallel; the column belongs there once that lands).

export interface SettlementReportLine extends SettlementLine {
  /** `orderId ?? merchantOrderId` of the session, as the API answers it; null when the merchant gave none. */
  orderId: string | null;
}

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The settlements CSV with `order_id` as its last column (added last: readers of the earlier columns by position keep working). */
export function settlementReportCsv(lines: readonly SettlementReportLine[]): string {
  // The domain's cells are ids, hashes, amounts, timestamps and enums: one CRLF-free line each.
  const written = settlementsCsv(lines).split('\r\n');
  if (written.length !== lines.length + 2) throw new Error('a settlement line spans several CSV lines');
  const rows = lines.map((l, i) => `${written[i + 1]},${cell(l.orderId ?? '')}`);
  return [`${written[0]},order_id`, ...rows].join('\r\n') + '\r\n';
}
