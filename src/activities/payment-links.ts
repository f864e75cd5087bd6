import { ApplicationFailure } from '@temporalio/activity';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { expirePaymentLink, markLinkPaid } from '../db/queries/payment-links';
import type { PaymentLinkStatus } from '../domain/payment-link';

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
 * Inside the completion's transaction, before anything is written: the link becomes paid by this
 * session, or, when another session paid it first, 'duplicate' (the customer paid twice, and the
 * caller records that money as an exception instead of completing). 'paid' says the link workflow
 * should be told.
 */
export async function recordLinkPayment(
  tx: DatabaseOrTransaction,
  linkId: string,
  sessionId: string,
): Promise<'paid' | 'duplicate' | 'missing'> {
  return markLinkPaid(tx, linkId, sessionId);
}
