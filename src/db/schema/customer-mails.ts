import { index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// A customer's receipt and refund notices, one row per mail, written by the activity that
// records what the mail tells (idempotently: one per payment, kind and subject), then sent by the
// worker's mail sender. The row is the record that the mail exists and whether it went out, so a
// retried activity or a second sender never sends it twice.
// The same outbox carries the dashboard's notices to merchants' people (the approval, a
// password changed, a member joined, two-factor turned on or off): written in the transaction of the
// change they tell of, with their words (`title`, `body`) fixed then, and no payment (`merchantId`
// instead). Mails with a link that signs someone in or resets a password are not written here: the
// link's token is kept only hashed, and a row would keep it in the clear.
export const customerMails = pgTable(
  'customer_mails',
  {
    id: text('id').primaryKey(),
    // The payment a customer mail tells of; null for a merchant notice.
    paymentId: text('payment_id'),
    // The merchant a notice goes to the people of; null for a customer mail.
    merchantId: text('merchant_id'),
    kind: text('kind', { enum: ['receipt', 'refund', 'notice'] }).notNull(),
    // What the mail is about beyond the payment: the refunded exception's id, or the completed
    // payment's refund's (rf_…); '' for the receipt.
    subject: text('subject').notNull().default(''),
    toAddress: text('to_address').notNull(),
    locale: text('locale').notNull(),
    // A notice's subject line and text, as written with the change; null for a customer mail (its
    // words are made when it is sent, in the customer's language).
    title: text('title'),
    body: text('body'),
    // sending: claimed by a sender (claimedAt); a claim older than the sender's lease is taken again.
    status: text('status', { enum: ['pending', 'sending', 'sent', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('customer_mails_payment_kind_subject_unique').on(t.paymentId, t.kind, t.subject),
    index('customer_mails_due_idx').on(t.status, t.nextAttemptAt),
  ],
);
