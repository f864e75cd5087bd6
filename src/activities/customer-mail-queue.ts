import type { Database } from '../db/client';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { queueCustomerMail } from '../db/queries/customer-mails';
import { newCustomerMailId } from '../domain/ids';

// The customer's mails about their payment, recorded in the outbox by the activity that records
// what they tell of, in the same step: once per payment, kind and subject whatever the retries (the
// outbox's unique key). They are sent by the worker's mail sender (customer-mails.ts), never from a
// payment's run, so a mail never holds up a payment.

/** The receipt of a completed payment, when the customer asked for one on the page (the common case has no address: no statement). */
export async function queueReceipt(db: Database, session: Pick<CheckoutSessionRow, 'id' | 'receiptEmail'>): Promise<void> {
  if (!session.receiptEmail) return;
  await queueCustomerMail(db, { id: newCustomerMailId(), paymentId: session.id, kind: 'receipt' });
}

/** The refund notice of a confirmed refund: `subject` is the refund's id (rf_…) or the refunded exception's. */
export async function queueRefundNotice(db: Database, paymentId: string, subject: string): Promise<void> {
  await queueCustomerMail(db, { id: newCustomerMailId(), paymentId, kind: 'refund', subject });
}
