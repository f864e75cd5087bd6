import { and, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, customerMails } from '../schema';

export type CustomerMailRow = typeof customerMails.$inferSelect;

/** Keeps the address (and the page's language) a customer gave for a receipt and refund notices. */
export async function setReceiptEmail(db: DatabaseOrTransaction, id: string, email: string, locale: string): Promise<void> {
  await db
    .update(checkoutSessions)
    .set({ receiptEmail: email, receiptLocale: locale, updatedAt: sql`now()` })
    .where(eq(checkoutSessions.id, id));
}

/**
 * Records the mail once for the session's receipt address, if it has one: a retried activity finds
 * it there and adds nothing (the unique key). Returns whether a mail is due for this (kind, subject).
 */
export async function queueCustomerMail(
  db: DatabaseOrTransaction,
  mail: { id: string; paymentId: string; kind: CustomerMailRow['kind']; subject?: string },
): Promise<boolean> {
  const rows = await db.execute<{ id: string }>(sql`
    insert into ${customerMails} (id, payment_id, kind, subject, to_address, locale)
    select ${mail.id}, s.id, ${mail.kind}, ${mail.subject ?? ''}, s.receipt_email, coalesce(s.receipt_locale, s.locale, 'en')
    from ${checkoutSessions} s where s.id = ${mail.paymentId} and s.receipt_email is not null
    on conflict (payment_id, kind, subject) do nothing
    returning id`);
  return rows.length > 0;
}

/**
 * A notice to merchants' people, one row per address, in the caller's transaction (the one
 * that makes the change the notice tells of), so that the change and its notice stand or fall together;
 * the worker's mail sender sends it. Nothing is written for no address.
 */
export async function queueNotices(
  db: DatabaseOrTransaction,
  notice: { merchantId: string; to: readonly string[]; subject: string; text: string; newId: () => string },
): Promise<void> {
  if (notice.to.length === 0) return;
  await db.insert(customerMails).values(
    notice.to.map((to) => ({
      id: notice.newId(),
      merchantId: notice.merchantId,
      kind: 'notice' as const,
      toAddress: to,
      locale: 'en',
      title: notice.subject,
      body: notice.text,
    })),
  );
}

/**
 * Takes up to `limit` mails due now for sending: pending ones whose time came, and ones a sender
 * claimed more than `leaseSeconds` ago and never finished (it died). Claimed rows are skipped by a
 * concurrent sender (SKIP LOCKED), so two workers never send the same mail at once.
 */
export async function claimDueMails(db: DatabaseOrTransaction, leaseSeconds: number, limit: number): Promise<CustomerMailRow[]> {
  return db.execute<CustomerMailRow>(sql`
    update ${customerMails} set status = 'sending', claimed_at = now(), attempts = attempts + 1
    where id in (
      select id from ${customerMails}
      where (status = 'pending' and next_attempt_at <= now())
         or (status = 'sending' and claimed_at < now() - make_interval(secs => ${leaseSeconds}))
      order by next_attempt_at
      limit ${limit}
      for update skip locked)
    returning id, payment_id as "paymentId", merchant_id as "merchantId", kind, title, body, subject, to_address as "toAddress", locale, status, attempts,
      last_error as "lastError", next_attempt_at as "nextAttemptAt", claimed_at as "claimedAt", sent_at as "sentAt", created_at as "createdAt"`);
}

export async function markMailSent(db: DatabaseOrTransaction, id: string): Promise<void> {
  await db
    .update(customerMails)
    .set({ status: 'sent', sentAt: sql`now()`, lastError: null })
    .where(and(eq(customerMails.id, id), eq(customerMails.status, 'sending')));
}

/** Back to pending for another attempt at `retryAt`, or failed for good (null): the error kept for an operator. */
export async function markMailUnsent(db: DatabaseOrTransaction, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .update(customerMails)
    .set(retryAt ? { status: 'pending', lastError: error, nextAttemptAt: retryAt } : { status: 'failed', lastError: error })
    .where(and(eq(customerMails.id, id), eq(customerMails.status, 'sending')));
}
