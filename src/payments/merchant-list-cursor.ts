import { validationError } from '../domain/errors';
import { decodeListCursor, type PaymentListPosition } from '../domain/payment-list';

// The merchant API's lists (checkout sessions, settlements) page by the cursor the dashboard's
// payment list uses. One rule for taking a cursor back, so every list refuses alike.

/** A page of a merchant's list, and the cursor of the next one (null on the last). */
export interface MerchantListPage<T> {
  items: T[];
  nextCursor: string | null;
}

// Paths as the request validation names query fields, so every refusal of a list reads alike.
const refusedCursor = () =>
  validationError(
    [{ path: 'querystring.cursor', message: 'Not a cursor this list handed out to this merchant.' }],
    'The request is not valid.',
  );

/**
 * The page's starting point. A cursor names the last row of the page before and where it stands; it
 * is taken only when both are exactly those of one of this merchant's rows (`positionOf` answers a
 * row's position, or nothing when it is not theirs). Anything else (another merchant's row, none, a
 * time edited into it) is refused alike, so a cursor cannot tell whether an id exists, and no forged
 * time reaches the query.
 */
export async function startAfter(
  cursor: string,
  positionOf: (id: string) => Promise<string | undefined>,
  isId?: (id: string) => boolean,
): Promise<PaymentListPosition> {
  let position: PaymentListPosition;
  try {
    position = decodeListCursor(cursor, isId);
  } catch {
    throw refusedCursor();
  }
  if ((await positionOf(position.id)) !== position.at) throw refusedCursor();
  return position;
}
