import { payeeOf } from '../chains/sweeper';
import { findSession } from '../db/queries/checkout-sessions';
import { claimDueMails, markMailSent, markMailUnsent, type CustomerMailRow } from '../db/queries/customer-mails';
import { findMerchant } from '../db/queries/merchants';
import { findPaymentRefund } from '../db/queries/payment-refunds';
import { listRefundPayouts } from '../db/queries/payouts';
import { findTransaction } from '../db/queries/transactions';
import type { Database } from '../db/client';
import { NETWORK_NAMES, type Network } from '../domain/assets';
import { formatCrypto, formatFiat } from '../domain/money';
import { isFiatCurrency } from '../domain/currencies';
import type { Mailer } from '../mail/mailer';
import { receiptMail, refundMail } from '../mail/customer-mail';

// The worker's sender of customers' receipts and refund notices. The activity that records
// a completion or a confirmed refund records its mail in the same step (customer-mail-queue.ts, once
// per payment, kind and subject, whatever the retries); this sender takes due mails, sends each through
// the mailer, and marks it sent. A mail is sent again only when its sender died between the SMTP
// server's acceptance and the mark (a lease later, with the same Message-ID); an SMTP server that
// keeps refusing is tried a bounded number of times, then the mail is failed with its error, for an
// operator to read. A mail never holds up a payment: it is not part of any payment's run.
// The same outbox carries the dashboard's notices to merchants' people (kind 'notice',
// written by their use cases through accounts/merchant-notices.ts with their words); they are sent here
// as written, with the same retries.

export interface CustomerMailSenderDeps {
  db: Database;
  mailer: Mailer;
  /** The host part of the mails' Message-IDs (the service's public host). */
  messageHost: string;
  log?: (message: string, fields: Record<string, unknown>) => void;
  /** A claim older than this is taken over (its sender died mid-send); default 120 s. */
  leaseSeconds?: number;
  maxAttempts?: number;
  /** The wait before attempt n+1 is retryBaseMs·2ⁿ⁻¹, at most an hour. */
  retryBaseMs?: number;
}

export const CUSTOMER_MAIL_ATTEMPTS = 8;

export function createCustomerMailSender(deps: CustomerMailSenderDeps) {
  const { db, mailer } = deps;
  const maxAttempts = deps.maxAttempts ?? CUSTOMER_MAIL_ATTEMPTS;
  const retryBaseMs = deps.retryBaseMs ?? 30_000;

  /** The mail's words, or null when what it tells is no longer there to tell (it is then failed, not sent). */
  async function compose(mail: CustomerMailRow): Promise<{ subject: string; text: string } | null> {
    // A merchant notice carries its words from the change it tells of.
    if (mail.kind === 'notice') return mail.title !== null && mail.body !== null ? { subject: mail.title, text: mail.body } : null;
    if (mail.paymentId === null) return null;
    const session = await findSession(db, mail.paymentId);
    if (!session || !isFiatCurrency(session.currency)) return null;
    const merchant = (await findMerchant(db, session.merchantId))?.name ?? session.merchantId;
    const network = NETWORK_NAMES[session.network as Network] ?? session.network;
    if (mail.kind === 'receipt') {
      const tx = await findTransaction(db, session.id);
      return receiptMail(mail.locale, {
        merchant,
        amount: formatFiat(session.amountMinor, session.currency),
        currency: session.currency,
        reference: session.id,
        paidAt: tx?.completedAt ?? new Date(mail.createdAt),
        crypto:
          session.verification === 'chain' && tx?.grossMicro != null
            ? { amount: formatCrypto(tx.grossMicro), asset: session.destinationAsset, network }
            : undefined,
      });
    }
    const sent = await refundSent(mail.subject);
    if (!sent) return null;
    return refundMail(mail.locale, {
      merchant,
      reference: session.id,
      amount: formatCrypto(sent.amountMicro),
      asset: session.destinationAsset,
      network,
      address: sent.address,
      transactionHash: sent.txHash,
    });
  }

  /** The confirmed transfer a refund notice tells of: a completed payment's refund (rf_…) or an exception's (its refund payout). */
  async function refundSent(subject: string): Promise<{ amountMicro: bigint; address: string; txHash: string } | null> {
    const refund = await findPaymentRefund(db, subject);
    if (refund) return refund.status === 'refunded' && refund.txHash ? { ...refund, txHash: refund.txHash } : null;
    const sent = (await listRefundPayouts(db, subject)).find((p) => p.kind === 'refund' && p.status === 'confirmed');
    // The payee: a refund is a call of the sweeper, whose `forward` names where the money went.
    return sent?.txHash ? { amountMicro: BigInt(sent.amount), address: payeeOf(sent), txHash: sent.txHash } : null;
  }

  async function sendOne(mail: CustomerMailRow): Promise<'sent' | 'retry' | 'failed'> {
    let words: { subject: string; text: string } | null;
    try {
      words = await compose(mail);
      if (!words) {
        await markMailUnsent(db, mail.id, "nothing to tell: the payment, its refund or the notice's words are not there", null);
        return 'failed';
      }
      await mailer.send(mail.toAddress, words.subject, words.text, undefined, { messageId: `<${mail.id}@${deps.messageHost}>` });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const retryAt =
        mail.attempts < maxAttempts ? new Date(Date.now() + Math.min(3_600_000, retryBaseMs * 2 ** (mail.attempts - 1))) : null;
      await markMailUnsent(db, mail.id, error, retryAt);
      deps.log?.(retryAt ? 'customer mail not sent; will retry' : 'customer mail failed for good', {
        mailId: mail.id,
        paymentId: mail.paymentId,
        merchantId: mail.merchantId,
        kind: mail.kind,
        attempts: mail.attempts,
        error,
      });
      return retryAt ? 'retry' : 'failed';
    }
    await markMailSent(db, mail.id);
    return 'sent';
  }

  return {
    /** One pass: every mail due now, sent or rescheduled; the number sent. */
    async sendDue(limit = 20): Promise<number> {
      let sent = 0;
      for (const mail of await claimDueMails(db, deps.leaseSeconds ?? 120, limit)) {
        if ((await sendOne(mail)) === 'sent') sent++;
      }
      return sent;
    },
  };
}

/** The sender every `intervalMs` (one pass at a time) until stopped; a pass Postgres could not serve waits for the next. */
export function startCustomerMailSender(deps: CustomerMailSenderDeps, intervalMs = 2000): { stop(): void } {
  const sender = createCustomerMailSender(deps);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sender
      .sendDue()
      .catch((err: unknown) => deps.log?.('customer mail pass failed', { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
