import { startAfter, type MerchantListPage } from './merchant-list-cursor';
import {
  findMerchantSessionPosition,
  listMerchantCheckoutSessions,
  type ListedCheckoutSession,
} from '../db/queries/merchant-checkout-sessions';
import { validationError } from '../domain/errors';
import { encodeListCursor } from '../domain/payment-list';
import type { PaymentStatus } from '../domain/payment-status';
import type { PaymentContext } from './context';

// The merchant API's list of checkout sessions: the calling merchant's own, newest first, paged by
// the cursor the dashboard's payment list uses. The merchant id is the key's, never the request's,
// so no filter or cursor reaches another merchant's rows. It reads only.

export const CHECKOUT_SESSION_LIST_DEFAULT_LIMIT = 20;
export const CHECKOUT_SESSION_LIST_MAX_LIMIT = 100;

export interface CheckoutSessionListQuery {
  statuses?: readonly PaymentStatus[] | undefined;
  orderId?: string | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

export type CheckoutSessionPage = MerchantListPage<ListedCheckoutSession>;

export async function listCheckoutSessions(
  ctx: Pick<PaymentContext, 'db'>,
  merchantId: string,
  query: CheckoutSessionListQuery,
): Promise<CheckoutSessionPage> {
  // An empty range is a mistake in the request, not an empty list.
  if (query.createdFrom && query.createdTo && query.createdFrom >= query.createdTo) {
    throw validationError([{ path: 'querystring.createdFrom', message: 'Must be before createdTo.' }], 'The request is not valid.');
  }
  const limit = Math.min(Math.max(query.limit ?? CHECKOUT_SESSION_LIST_DEFAULT_LIMIT, 1), CHECKOUT_SESSION_LIST_MAX_LIMIT);
  const after = query.cursor ? await startAfter(query.cursor, (id) => findMerchantSessionPosition(ctx.db, merchantId, id)) : undefined;
  // One row more than asked says whether there is a next page without a count.
  const rows = await listMerchantCheckoutSessions(ctx.db, {
    merchantId,
    statuses: query.statuses,
    orderId: query.orderId,
    createdFrom: query.createdFrom,
    createdTo: query.createdTo,
    after,
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeListCursor({ at: last.position, id: last.id }) : null };
}
