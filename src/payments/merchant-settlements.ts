import {
  findMerchantSettlement,
  findMerchantSettlementPosition,
  findPaymentSettlement,
  listMerchantSettlements,
  merchantBalanceLines,
  type SettlementRow,
} from '../db/queries/merchant-settlements';
import { merchantBalance, type MerchantBalance } from '../domain/balances';
import { notFound, validationError } from '../domain/errors';
import { isCanonicalPaymentId, isPayoutId } from '../domain/ids';
import { decodeListCursor, encodeListCursor, type PaymentListPosition } from '../domain/payment-list';
import type { PaymentContext } from './context';

// The merchant API's reads of settlement (docs/settlement.md): the calling merchant's balances and the
// payouts to their wallets. The merchant id is the key's, never the request's. It reads only.

export const SETTLEMENT_LIST_DEFAULT_LIMIT = 20;
export const SETTLEMENT_LIST_MAX_LIMIT = 100;

/** A merchant's balance in one network and asset, in micro units owed to them. */
export type NetworkBalance = { network: string; asset: string } & MerchantBalance;

/** Every network and asset the merchant's balance accounts have lines in, in that order. */
export async function merchantBalances(ctx: Pick<PaymentContext, 'db'>, merchantId: string): Promise<NetworkBalance[]> {
  const places = new Map<string, { network: string; asset: string; totals: Map<string, bigint> }>();
  for (const line of await merchantBalanceLines(ctx.db, merchantId)) {
    const key = `${line.network} ${line.asset}`;
    const place = places.get(key) ?? { network: line.network, asset: line.asset, totals: new Map<string, bigint>() };
    place.totals.set(line.account, line.total);
    places.set(key, place);
  }
  return [...places.values()].map(({ network, asset, totals }) => ({
    network,
    asset,
    ...merchantBalance(merchantId, (account) => totals.get(account) ?? 0n),
  }));
}

export interface SettlementPage {
  items: SettlementRow[];
  /** Hand back for the next page; null on the last one. */
  nextCursor: string | null;
}

const refusedCursor = () =>
  validationError(
    [{ path: 'querystring.cursor', message: 'Not a cursor this list handed out to this merchant.' }],
    'The request is not valid.',
  );

/**
 * The page's starting point, taken only when the cursor names one of this merchant's settlements at
 * exactly its position: anything else is refused alike, so a cursor cannot tell whether a payout
 * exists, and no forged time reaches the query.
 */
async function startAfter(ctx: Pick<PaymentContext, 'db'>, merchantId: string, cursor: string): Promise<PaymentListPosition> {
  let position: PaymentListPosition;
  try {
    position = decodeListCursor(cursor, isPayoutId);
  } catch {
    throw refusedCursor();
  }
  if ((await findMerchantSettlementPosition(ctx.db, merchantId, position.id)) !== position.at) throw refusedCursor();
  return position;
}

export async function listSettlements(
  ctx: Pick<PaymentContext, 'db'>,
  merchantId: string,
  query: { cursor?: string | undefined; limit?: number | undefined },
): Promise<SettlementPage> {
  const limit = Math.min(Math.max(query.limit ?? SETTLEMENT_LIST_DEFAULT_LIMIT, 1), SETTLEMENT_LIST_MAX_LIMIT);
  const after = query.cursor ? await startAfter(ctx, merchantId, query.cursor) : undefined;
  // One row more than asked says whether there is a next page without a count.
  const rows = await listMerchantSettlements(ctx.db, { merchantId, after, limit: limit + 1 });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeListCursor({ at: last.position, id: last.id }) : null };
}

/**
 * One settlement by its payout id, or the one that pays a payment (by the payment's id). Whatever is
 * not found (unknown, another merchant's, a payment not paid out yet, an id of neither shape) is the
 * same 404, so the answer never tells whether someone else's id exists.
 */
export async function findSettlement(ctx: Pick<PaymentContext, 'db'>, merchantId: string, id: string): Promise<SettlementRow> {
  const found = isPayoutId(id)
    ? await findMerchantSettlement(ctx.db, merchantId, id)
    : isCanonicalPaymentId(id)
      ? await findPaymentSettlement(ctx.db, merchantId, id)
      : undefined;
  if (!found) throw notFound('Settlement');
  return found;
}
