import { and, eq, inArray, isNotNull, ne, or } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions } from '../schema';

/** The link's other sessions whose customer pressed Pay: their provider payments are closed once the link is paid. */
export async function listLinkSiblingPayments(
  db: DatabaseOrTransaction,
  linkId: string,
  paidSessionId: string,
): Promise<{ id: string; provider: string; providerPaymentId: string }[]> {
  const rows = await db
    .select({ id: checkoutSessions.id, provider: checkoutSessions.provider, providerPaymentId: checkoutSessions.providerPaymentId })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.paymentLinkId, linkId), ne(checkoutSessions.id, paidSessionId), isNotNull(checkoutSessions.providerPaymentId)));
  return rows.map((r) => ({ ...r, providerPaymentId: r.providerPaymentId! }));
}

/**
 * A session of the link whose payment is under way (the customer pressed Pay or asked for the
 * deposit address, and it has not ended), other than `sessionId`: a second tab must not pay too.
 */
export async function findLinkPaymentInProgress(db: DatabaseOrTransaction, linkId: string, sessionId: string | null): Promise<string | undefined> {
  const [row] = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.paymentLinkId, linkId),
        ...(sessionId ? [ne(checkoutSessions.id, sessionId)] : []),
        inArray(checkoutSessions.status, ['pending', 'processing']),
        or(isNotNull(checkoutSessions.providerPaymentId), isNotNull(checkoutSessions.expectedGrossMicro), eq(checkoutSessions.status, 'processing')),
      ),
    )
    .limit(1);
  return row?.id;
}
