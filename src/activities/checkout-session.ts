import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import { transitionSession, type SessionEventContext } from '../db/queries/checkout-session-events';
import { findSessionWithMerchant, lockSession } from '../db/queries/checkout-sessions';
import { recordLateFact } from '../db/queries/late-payments';
import { insertTransactionOnce } from '../db/queries/transactions';
import { parseCrypto } from '../domain/money';
import type { CancelReason, PaymentStatus } from '../domain/payment-status';
import type { ProviderFact } from '../domain/provider-fact';
import { completeSession } from './session-completion';

export interface CheckoutActivityDeps {
  db: Database;
  now: () => Date;
}

/** The moved row with its event's context (transitionSession), or null when the move was made before. */
type MovedSession = Omit<SessionEventContext, 'transaction'> | null;

const missing = (paymentId: string) => ApplicationFailure.nonRetryable(`no checkout session ${paymentId}`, 'SessionMissing');

/**
 * The checkout workflow's side effects. Each is idempotent: status changes are conditional on the
 * current status, the transaction is unique per payment, so a retry or replay changes nothing.
 */
export function createCheckoutActivities({ db, now }: CheckoutActivityDeps) {
  return {
    /**
     * A move decided by the workflow alone (cancel, expiry); the domain's table says which statuses it
     * may leave (`_from` echoes it). A cancel keeps its reason; one without is the customer's Cancel,
     * the only other way a session is canceled.
     */
    async recordStatusChange(
      paymentId: string,
      _from: readonly PaymentStatus[],
      to: PaymentStatus,
      reason?: CancelReason,
    ): Promise<MovedSession> {
      return transitionSession(db, paymentId, to, to === 'canceled' ? { cancelReason: reason ?? 'customer' } : {});
    },

    async recordProcessing(paymentId: string, fact: ProviderFact): Promise<MovedSession> {
      return transitionSession(db, paymentId, 'processing', { providerPaymentId: fact.providerPaymentId });
    },

    /**
     * Commission split, transaction row and session status in one database transaction.
     * Returns the payment link this completion paid, for the workflow to tell, or the `duplicate`
     * exception when another session of the link paid it first (the session then does not complete).
     */
    async recordCompletion(paymentId: string, fact: ProviderFact): Promise<{ paidLinkId: string | null; duplicateExceptionId?: string }> {
      if (!fact.destinationAmount || !fact.transactionHash) {
        throw ApplicationFailure.nonRetryable('a success without amount or transaction hash', 'BadProviderFact');
      }
      const gross = parseCrypto(fact.destinationAmount);
      const transactionHash = fact.transactionHash;
      const outcome = await db.transaction(async (tx) => {
        const session = await lockSession(tx, paymentId);
        if (!session) throw missing(paymentId);
        return completeSession(tx, session, {
          grossMicro: gross,
          providerPaymentId: fact.providerPaymentId,
          providerEventId: fact.eventId,
          transactionHash,
          explorerUrl: fact.explorerUrl ?? null,
          completedAt: new Date(fact.occurredAt),
        });
      });
      return outcome.completed
        ? { paidLinkId: outcome.paidLinkId }
        : { paidLinkId: null, duplicateExceptionId: outcome.duplicateExceptionId };
    },

    async recordFailure(paymentId: string, fact: ProviderFact): Promise<MovedSession> {
      return db.transaction(async (tx) => {
        const session = await lockSession(tx, paymentId);
        if (!session) throw missing(paymentId);
        await insertTransactionOnce(tx, {
          paymentId,
          merchantId: session.merchantId,
          status: 'failed',
          sourceAmountMinor: session.amountMinor,
          sourceCurrency: session.currency,
          destinationAsset: session.destinationAsset,
          network: session.network,
          walletAddress: session.walletAddress,
          commissionBps: session.commissionBps,
          provider: session.provider,
          providerPaymentId: fact.providerPaymentId,
          providerEventId: fact.eventId,
          failureReason: fact.failureReason ?? 'declined',
        });
        return transitionSession(tx, paymentId, 'failed');
      });
    },

    /**
     * Money after the session ended: a `late` exception, one per arrival. Returns the
     * exception's id for the workflow to announce, or null when the fact was no money (not a success).
     */
    async flagLateSuccess(paymentId: string, fact: ProviderFact, status: PaymentStatus): Promise<string | null> {
      const session = await findSessionWithMerchant(db, paymentId);
      if (!session) throw missing(paymentId);
      const exception = await recordLateFact(
        db,
        {
          kind: 'checkout_session',
          id: paymentId,
          provider: session.provider,
          network: session.network,
          status,
          paid: status === 'completed',
          paidBy: session.providerPaymentId,
          linkPaidElsewhere: session.linkPaidBy !== null && session.linkPaidBy !== session.id,
          verification: session.verification,
        },
        fact,
        now(),
      );
      return exception?.id ?? null;
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
