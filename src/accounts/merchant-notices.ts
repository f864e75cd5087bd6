import type { DatabaseOrTransaction } from '../db/client';
import { queueNotices } from '../db/queries/customer-mails';
import { newCustomerMailId } from '../domain/ids';

// The dashboard's notices to merchants' people (the approval, a password changed, two-factor
// on or off, a member joined) go through the mail outbox customers' mails use: written here, in the
// transaction of the change they tell of, and sent by the worker's mail sender
// (activities/customer-mails.ts) with bounded retries. A request never waits for SMTP, and a notice
// is never lost to a failed send: it is retried, and kept as failed (with its error) for an operator.
// Mails that carry a one-time link (verification, password reset, invitation) are sent at once by
// their use cases instead: their tokens are stored only hashed, and an outbox row would keep them.

export function queueNotice(
  tx: DatabaseOrTransaction,
  merchantId: string,
  to: readonly string[],
  mail: { subject: string; text: string },
): Promise<void> {
  return queueNotices(tx, { merchantId, to, ...mail, newId: newCustomerMailId });
}
