import type { DatabaseOrTransaction } from '../db/client';
import { findMerchant, lockMerchant, type MerchantRow } from '../db/queries/merchants';
import { settledTransactions } from '../db/queries/settlements';
import { deleteEndpoint, insertEndpoint, listEndpoints, setEndpointEnabled } from '../db/queries/webhooks';
import { notFound } from '../domain/errors';
import { MERCHANT_ID } from '../domain/ids';
import type { PaymentContext } from './context';

/** A merchant by id (locked for update when asked); a malformed or unknown id is 404 Merchant. */
export async function requireMerchant(db: DatabaseOrTransaction, id: string, lock = false): Promise<MerchantRow> {
  if (!MERCHANT_ID.test(id)) throw notFound('Merchant');
  const m = lock ? await lockMerchant(db, id) : await findMerchant(db, id);
  if (!m) throw notFound('Merchant');
  return m;
}

/** Operators' use cases on one merchant: its webhook endpoints and its settlements. */
export function adminMerchants(ctx: PaymentContext) {
  return {
    requireMerchant: (id: string) => requireMerchant(ctx.db, id),
    /** Settled transactions (merchant payout confirmed in [from, to)), for the settlements CSV. */
    settledTransactions: (merchantId: string, from: Date, to: Date) => settledTransactions(ctx.db, { merchantId, from, to }),
    addEndpoint: (row: { id: string; merchantId: string; url: string; secretEncrypted: string }) => insertEndpoint(ctx.db, row),
    listEndpoints: (merchantId: string) => listEndpoints(ctx.db, merchantId),
    setEndpointEnabled: (input: { merchantId: string; endpointId: string; enabled: boolean }) => setEndpointEnabled(ctx.db, input),
    deleteEndpoint: (input: { merchantId: string; endpointId: string }) => deleteEndpoint(ctx.db, input),
  };
}
