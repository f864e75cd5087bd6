import { and, eq, inArray, isNotNull, ne, notExists, or } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { chainCredits, checkoutSessions } from '../schema';

/** The link's other sessions whose customer pressed Pay: their provider payments are closed once the link is paid. */
export async function listLinkSiblingPayments(
  db: DatabaseOrTransaction,
  linkId: string,
  paidSessionId: string,
): Promise<{ id: string; provider: string; providerPaymentId: string }[]> {
  const rows = await db
    .select({ id: checkoutSessions.id, provider: checkoutSessions.provider, providerPaymentId: checkoutSessions.providerPaymentId })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.paymentLinkId, linkId),
        ne(checkoutSessions.id, paidSessionId),
        isNotNull(checkoutSessions.providerPaymentId),
      ),
    );
  return rows.map((r) => ({ ...r, providerPaymentId: r.providerPaymentId! }));
}

/**
 * The link's other sessions still open to a payment (decisions §14: they end once the link is paid).
 * Not those already processing, nor a pending one holding credits of its deposit address: money is
 * on its way there, and its own run records it (completion becomes a `duplicate`, a shortfall
 * `underpaid`), which a cancel now would skip.
 */
export async function listOpenLinkSiblings(db: DatabaseOrTransaction, linkId: string, paidSessionId: string): Promise<string[]> {
  const rows = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.paymentLinkId, linkId),
        ne(checkoutSessions.id, paidSessionId),
        eq(checkoutSessions.status, 'pending'),
        notExists(db.select({ one: chainCredits.paymentId }).from(chainCredits).where(eq(chainCredits.paymentId, checkoutSessions.id))),
      ),
    );
  return rows.map((r) => r.id);
}

/**
 * A session of the link whose payment is under way (the customer pressed Pay or asked for the
 * deposit address, and it has not ended), other than `sessionId`: a second tab must not pay too.
 */
export async function findLinkPaymentInProgress(
  db: DatabaseOrTransaction,
  linkId: string,
  sessionId: string | null,
): Promise<string | undefined> {
  const [row] = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.paymentLinkId, linkId),
        ...(sessionId ? [ne(checkoutSessions.id, sessionId)] : []),
        inArray(checkoutSessions.status, ['pending', 'processing']),
        or(
          isNotNull(checkoutSessions.providerPaymentId),
          isNotNull(checkoutSessions.expectedGrossMicro),
          eq(checkoutSessions.status, 'processing'),
        ),
      ),
    )
    .limit(1);
  return row?.id;
}
