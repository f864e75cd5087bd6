// The search params of the pages whose state lives in the URL (the payments list's filters, the
// Money page's dates and pages): apart from the pages, so the router checks them without loading
// the pages' own code, which comes in its own chunk when the page is opened.

export const FILTERS = [
  'q',
  'status',
  'from',
  'to',
  'currency',
  'minAmount',
  'maxAmount',
  'asset',
  'network',
  'rail',
  'openExceptions',
  'link',
] as const;
export type PaymentSearch = Partial<Record<(typeof FILTERS)[number] | 'cursor' | 'trail', string>>;

/** The URL's search params as plain strings, every unknown key dropped. */
export function paymentSearch(raw: Record<string, unknown>): PaymentSearch {
  const out: PaymentSearch = {};
  for (const key of [...FILTERS, 'cursor', 'trail'] as const) {
    const v = raw[key];
    if (typeof v === 'string' && v !== '') out[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[key] = String(v);
  }
  return out;
}

export type MoneySearch = Partial<Record<'from' | 'to' | 'payouts' | 'payoutsTrail', string>>;

/** The URL's search params as plain strings, every unknown key dropped. */
export function moneySearch(raw: Record<string, unknown>): MoneySearch {
  const out: MoneySearch = {};
  for (const key of ['from', 'to', 'payouts', 'payoutsTrail'] as const) {
    const v = raw[key];
    if (typeof v === 'string' && v !== '') out[key] = v;
  }
  return out;
}
