import { findSession } from '../db/queries/checkout-sessions';
import { listAllPayouts } from '../db/queries/payouts';
import { listProviderEvents } from '../db/queries/provider-events';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { findTransaction } from '../db/queries/transactions';
import { notFound } from '../domain/errors';
import type { PaymentContext } from './context';

/** Operators' reads: any payment or simple order, whichever merchant it belongs to. */
export function adminLookups(ctx: PaymentContext) {
  return {
    /** A payment with its transaction (if any) and its payouts: the settlement, then refunds of its exceptions. */
    async payment(id: string) {
      const session = await findSession(ctx.db, id);
      if (!session) throw notFound('Payment');
      const [transaction, payouts] = await Promise.all([findTransaction(ctx.db, session.id), listAllPayouts(ctx.db, session.id)]);
      return { session, transaction, payouts };
    },
    /** A simple-API order (by its lower-case transaction code) with the provider events received for it. */
    async simpleOrder(code: string) {
      const order = await findSimpleOrder(ctx.db, code);
      if (!order) throw notFound('Simple order');
      return { order, providerEvents: await listProviderEvents(ctx.db, order.transactionCode) };
    },
  };
}
