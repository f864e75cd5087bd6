import { ApplicationFailure } from '@temporalio/activity';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { flagPaymentForReview } from '../db/queries/late-payments';
import { expirePaymentLink, markLinkPaid } from '../db/queries/payment-links';
import type { PaymentLinkStatus } from '../workflows/payment-link/messages';

export interface PaymentLinkActivityDeps {
  db: Database;
}

/** The payment-link workflow's side effect: expiry, conditional on the link still being open. */
export function createPaymentLinkActivities({ db }: PaymentLinkActivityDeps) {
  return {
    async expirePaymentLink(linkId: string): Promise<PaymentLinkStatus> {
      const status = await expirePaymentLink(db, linkId);
      if (!status) throw ApplicationFailure.nonRetryable(`no payment link ${linkId}`, 'LinkMissing');
      return status;
    },
  };
}

export type PaymentLinkActivities = ReturnType<typeof createPaymentLinkActivities>;

/**
 * Inside the completion's transaction: the link becomes paid by this session, or, when another
 * session paid it first, this session is flagged for an operator (the customer paid twice).
 * Returns whether the link workflow should be told.
 */
export async function recordLinkPayment(tx: DatabaseOrTransaction, linkId: string, sessionId: string): Promise<boolean> {
  const outcome = await markLinkPaid(tx, linkId, sessionId);
  if (outcome === 'duplicate') {
    await flagPaymentForReview(tx, 'checkout_session', sessionId, 'duplicate_link_payment', `Payment link ${linkId} was already paid by another session.`);
  }
  return outcome === 'paid';
}
