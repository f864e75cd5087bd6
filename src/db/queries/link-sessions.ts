import { and, eq, inArray, isNotNull, ne, notExists, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import type { LinkSessionFacts, PayingRail } from '../../domain/link-payer';
import { chainCredits, checkoutSessions, providerEvents } from '../schema';

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
 * The link's other sessions still open to a payment (they end once the link is paid).
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
 * The link's other sessions not yet ended, with what says whether one of them is taking the link's
 * money (domain/link-payer.ts): its Pay, the provider's last decline, its deposit instructions, its credits.
 */
export async function listLinkSessionFacts(
  db: DatabaseOrTransaction,
  linkId: string,
  exceptSessionId: string | null,
): Promise<(LinkSessionFacts & { id: string })[]> {
  return db
    .select({
      id: checkoutSessions.id,
      status: checkoutSessions.status,
      expiresAt: checkoutSessions.expiresAt,
      payAttemptAt: checkoutSessions.payAttemptAt,
      providerPaymentId: checkoutSessions.providerPaymentId,
      depositShownAt: checkoutSessions.depositShownAt,
      // A refused callback (bad signature, other terms) is nobody's word that the attempt ended.
      declinedAt: sql<Date | null>`(select max(${providerEvents.receivedAt}) from ${providerEvents}
        where ${providerEvents.paymentId} = ${checkoutSessions.id} and ${providerEvents.type} = 'payment.failed'
        and ${providerEvents.state} <> 'rejected')`.mapWith(checkoutSessions.payAttemptAt),
      credited: sql<boolean>`exists (select 1 from ${chainCredits}
        where ${chainCredits.paymentId} = ${checkoutSessions.id} and ${chainCredits.state} = 'credited')`,
    })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.paymentLinkId, linkId),
        ...(exceptSessionId ? [ne(checkoutSessions.id, exceptSessionId)] : []),
        inArray(checkoutSessions.status, ['pending', 'processing']),
      ),
    );
}

/** The column that says a session began taking money on a rail (domain/link-payer.ts). */
const markOf = { provider: checkoutSessions.payAttemptAt, wallet: checkoutSessions.depositShownAt } as const;

/**
 * The session begins taking money on `rail`: Pay pressed (each Pay is a new attempt) or the deposit
 * instructions handed out (the first time stands). Answers the time it holds and the one it replaced,
 * so a Pay or a deposit that then fails can give the link back.
 */
export async function markTakingMoney(
  tx: DatabaseOrTransaction,
  sessionId: string,
  rail: PayingRail,
): Promise<{ at: Date; previous: Date | null } | undefined> {
  const column = markOf[rail];
  const [before] = await tx.select({ previous: column }).from(checkoutSessions).where(eq(checkoutSessions.id, sessionId)).for('update');
  if (!before) return undefined;
  const at = rail === 'provider' ? sql`now()` : sql`coalesce(${column}, now())`;
  const [after] = await tx
    .update(checkoutSessions)
    .set({ [rail === 'provider' ? 'payAttemptAt' : 'depositShownAt']: at, updatedAt: sql`now()` })
    .where(eq(checkoutSessions.id, sessionId))
    .returning({ at: column });
  return { at: after!.at!, previous: before.previous };
}

/** Gives back what `markTakingMoney` took, unless a later call took it since. */
export async function restoreTakingMoney(
  db: DatabaseOrTransaction,
  claim: { sessionId: string; rail: PayingRail; at: Date; previous: Date | null },
): Promise<void> {
  await db
    .update(checkoutSessions)
    .set({ [claim.rail === 'provider' ? 'payAttemptAt' : 'depositShownAt']: claim.previous, updatedAt: sql`now()` })
    .where(and(eq(checkoutSessions.id, claim.sessionId), eq(markOf[claim.rail], claim.at)));
}
