import { listMerchantPayments, type MerchantPaymentRow } from '../db/queries/merchant-payments';
import { csvLine } from '../domain/csv';
import { formatFiatText } from '../domain/money';
import { merchantPaymentLabels, paidWithText } from '../domain/payment-labels';
import {
  checkPaymentListFilter,
  decodeListCursor,
  encodeListCursor,
  PAYMENT_LIST_DEFAULT_LIMIT,
  PAYMENT_LIST_MAX_LIMIT,
  type PaymentListFilter,
} from '../domain/payment-list';
import type { PaymentContext } from './context';

// A merchant reads their own payments (every source: the API, plugins, links). The
// merchant id comes from who is signed in, never from the request, so no filter reaches another's rows.

export interface PaymentListPage {
  items: MerchantPaymentRow[];
  /** Hand back for the next page; null on the last one. */
  nextCursor: string | null;
}

export const PAYMENT_EXPORT_COLUMNS = [
  'payment_id',
  'created_at',
  'status',
  'amount',
  'currency',
  'asset',
  'network',
  'rail_type',
  'provider',
  'source',
  'order_id',
  'customer_email',
  'payment_link_id',
  'completed_at',
  'open_exceptions',
  // Added last, so that a reader of the earlier columns by position is not broken.
  'paid_with',
] as const;

function exportCells(r: MerchantPaymentRow): string[] {
  const { paidWith, provider } = merchantPaymentLabels(r, r.arrivedMicro);
  return [
    r.id,
    r.createdAt.toISOString(),
    r.status,
    formatFiatText(r.amountMinor, r.currency),
    r.currency,
    r.destinationAsset,
    r.network,
    r.railType,
    provider ?? '',
    r.source,
    r.orderId ?? r.merchantOrderId ?? '',
    r.customerEmail ?? '',
    r.paymentLinkId ?? '',
    r.completedAt?.toISOString() ?? '',
    String(r.openExceptions),
    paidWithText(paidWith, provider),
  ];
}

/** Rows read per query while exporting: the file streams out as it is read, whatever its length. */
const EXPORT_PAGE = 1000;

export function merchantPayments(ctx: Pick<PaymentContext, 'db'>) {
  return {
    async list(merchantId: string, filter: PaymentListFilter, page: { cursor?: string; limit?: number } = {}): Promise<PaymentListPage> {
      checkPaymentListFilter(filter);
      const limit = Math.min(Math.max(page.limit ?? PAYMENT_LIST_DEFAULT_LIMIT, 1), PAYMENT_LIST_MAX_LIMIT);
      const after = page.cursor ? decodeListCursor(page.cursor) : undefined;
      // One row more than asked says whether there is a next page without a count.
      const rows = await listMerchantPayments(ctx.db, merchantId, filter, { after, limit: limit + 1 });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeListCursor({ at: last.position, id: last.id }) : null };
    },

    /** Exactly the rows `list` pages through for the same filter, as CSV lines, header first. */
    async *exportCsv(merchantId: string, filter: PaymentListFilter): AsyncGenerator<string> {
      checkPaymentListFilter(filter);
      yield csvLine(PAYMENT_EXPORT_COLUMNS);
      let after: { at: string; id: string } | undefined;
      for (;;) {
        const rows = await listMerchantPayments(ctx.db, merchantId, filter, { after, limit: EXPORT_PAGE });
        if (rows.length > 0) yield rows.map((r) => csvLine(exportCells(r))).join('');
        if (rows.length < EXPORT_PAGE) return;
        const last = rows.at(-1)!;
        after = { at: last.position, id: last.id };
      }
    },
  };
}
