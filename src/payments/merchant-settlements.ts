import { startAfter, type MerchantListPage } from './merchant-list-cursor';
import {
  findMerchantSettlement,
  findMerchantSettlementPosition,
  findPaymentSettlement,
  listMerchantSettlements,
  merchantBalanceLines,
  type SettlementRow,
} from '../db/queries/merchant-settlements';
import { merchantBalance, type MerchantBalance } from '../domain/balances';
import { notFound } from '../domain/errors';
import { isCanonicalPaymentId, isPayoutId } from '../domain/ids';
import { encodeListCursor } from '../domain/payment-list';
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

export type SettlementPage = MerchantListPage<SettlementRow>;

export async function listSettlements(
  ctx: Pick<PaymentContext, 'db'>,
  merchantId: string,
  query: { cursor?: string | undefined; limit?: number | undefined },
): Promise<SettlementPage> {
  const limit = Math.min(Math.max(query.limit ?? SETTLEMENT_LIST_DEFAULT_LIMIT, 1), SETTLEMENT_LIST_MAX_LIMIT);
  const after = query.cursor
    ? await startAfter(query.cursor, (id) => findMerchantSettlementPosition(ctx.db, merchantId, id), isPayoutId)
    : undefined;
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
