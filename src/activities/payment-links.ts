import { ApplicationFailure, getClient } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { flagForReview } from '../db/queries/checkout-sessions';
import { expirePaymentLink, markLinkPaid } from '../db/queries/payment-links';
import { linkPaidSignal, type PaymentLinkStatus } from '../workflows/payment-link/messages';

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
    await flagForReview(tx, sessionId, 'duplicate_link_payment', `Payment link ${linkId} was already paid by another session.`);
  }
  return outcome === 'paid';
}

/**
 * Ends the link's workflow now rather than at expiresAt. Postgres already says paid, so this only
 * saves a long-lived run: a closed workflow is fine, another error retries the (idempotent)
 * completion activity, and outside a worker (an activity called directly) there is nothing to tell;
 * a run that never hears of the payment finds the link paid at expiresAt and leaves it so.
 */
export async function announceLinkPaid(linkId: string, sessionId: string): Promise<void> {
  let client: Client;
  try {
    client = getClient();
  } catch {
    return;
  }
  try {
    await client.workflow.getHandle(linkId).signal(linkPaidSignal, { sessionId });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    throw err;
  }
}
