import { findMerchant } from '../db/queries/merchants';
import { listPaymentExceptions } from '../db/queries/payment-exceptions';
import { getPaymentsSetting } from '../db/queries/platform-settings';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { findTransaction } from '../db/queries/transactions';
import type { PaymentContext } from './context';

/** What the hosted pages show besides the payment itself, read from Postgres. */
export function hostedPageReads(ctx: PaymentContext) {
  return {
    /** The merchant's display name (undefined for an unknown merchant). */
    merchantName: async (merchantId: string) => (await findMerchant(ctx.db, merchantId))?.name,
    /** Whether the operators' kill switch lets new payments start (shown, not enforced, by a page). */
    paymentsEnabled: async () => (await getPaymentsSetting(ctx.db)).enabled,
    paymentExceptions: (sessionId: string) => listPaymentExceptions(ctx.db, sessionId),
    /** Why the session's transaction failed, if it did. */
    failureReason: async (sessionId: string) => (await findTransaction(ctx.db, sessionId))?.failureReason ?? null,
    /** A simple order by its transaction code, in any case. */
    simpleOrder: (code: string) => findSimpleOrder(ctx.db, code.toLowerCase()),
  };
}
