import { findSession, findSessionForLookup } from '../db/queries/checkout-sessions';
import { findMerchantName } from '../db/queries/merchants';
import { listPaymentExceptions } from '../db/queries/payment-exceptions';
import { findTransaction } from '../db/queries/transactions';
import { notFound } from '../domain/errors';
import type { PaymentContext } from './context';

/**
 * Reads of payments for the merchant API and the public status lookup, from Postgres (never from a
 * workflow). Another merchant's payment is 404, never 403: its existence is not revealed.
 */
export function paymentLookups(ctx: PaymentContext) {
  async function ownSession(merchantId: string, id: string) {
    const session = await findSession(ctx.db, id);
    if (!session || session.merchantId !== merchantId) throw notFound('Payment');
    return session;
  }
  return {
    /** A merchant's own session with its exceptions (read only when it has any). */
    async merchantSession(merchantId: string, id: string) {
      const found = await findSessionForLookup(ctx.db, id);
      if (!found || found.session.merchantId !== merchantId) throw notFound('Payment');
      const exceptions = found.hasExceptions ? await listPaymentExceptions(ctx.db, found.session.id) : [];
      return { session: found.session, exceptions };
    },
    /** A merchant's own session with its latest transaction, if any. */
    async merchantTransaction(merchantId: string, id: string) {
      const session = await ownSession(merchantId, id);
      return { session, transaction: await findTransaction(ctx.db, session.id) };
    },
    /** Any visible session, for the public lookup; 404 when there is none. */
    async publicSession(id: string) {
      const session = await findSession(ctx.db, id);
      if (!session) throw notFound('Checkout session');
      return session;
    },
    merchantName: (merchantId: string) => findMerchantName(ctx.db, merchantId),
  };
}
