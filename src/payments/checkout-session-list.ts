import { findMerchantSessionPosition, listMerchantCheckoutSessions, type ListedCheckoutSession } from '../db/queries/checkout-sessions';
import { validationError } from '../domain/errors';
import { decodeListCursor, encodeListCursor, type PaymentListPosition } from '../domain/payment-list';
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

export interface CheckoutSessionPage {
  items: ListedCheckoutSession[];
  /** Hand back for the next page; null on the last one. */
  nextCursor: string | null;
}

// Paths as the request validation names query fields, so every refusal of this list reads alike.
const refusedCursor = () =>
  validationError(
    [{ path: 'querystring.cursor', message: 'Not a cursor this list handed out to this merchant.' }],
    'The request is not valid.',
  );

/**
 * The page's starting point. A cursor names the last session of the page before and where it
 * stands; it is taken only when both are exactly those of one of this merchant's sessions. Anything
 * else (another merchant's session, none, a time edited into it) is refused alike, so a cursor
 * cannot be used to learn whether a session id exists, and no forged time reaches the query.
 */
async function startAfter(ctx: Pick<PaymentContext, 'db'>, merchantId: string, cursor: string): Promise<PaymentListPosition> {
  let position: PaymentListPosition;
  try {
    position = decodeListCursor(cursor);
  } catch {
    throw refusedCursor();
  }
  if ((await findMerchantSessionPosition(ctx.db, merchantId, position.id)) !== position.at) throw refusedCursor();
  return position;
}

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
  const after = query.cursor ? await startAfter(ctx, merchantId, query.cursor) : undefined;
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
