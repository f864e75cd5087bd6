import { z } from 'zod';
import { setReceiptEmail } from '../db/queries/customer-mails';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { AppError, notFound } from '../domain/errors';
import type { PageLocale } from '../domain/locales';
import type { PaymentContext } from './context';
import { findCheckoutSession } from './checkout-actions';
import { refundAddressAsk } from './refund-addresses';

// The customer may leave an email address on the page for a receipt and refund notices
// (optional). Kept on the session with the page's language; the mails themselves are recorded by the
// activities that complete the payment or confirm its refund, and sent by the worker
// (activities/customer-mails.ts).

const EMAIL = z.email().max(254);

export interface ReceiptEmailAsk {
  /** The address the customer gave, if any. */
  saved: string | null;
  /** The form's first value: the customer email the merchant passed, if any. */
  suggested: string | null;
}

/** Whether the page offers the form: mail can be sent, and a receipt or a refund notice may still come. */
export async function receiptEmailAsk(ctx: PaymentContext, session: CheckoutSessionRow): Promise<ReceiptEmailAsk | null> {
  if (!ctx.config.mail.smtpUrl || session.mode === 'test') return null;
  const open = session.status === 'pending' || session.status === 'processing';
  if (!open && !(await refundAddressAsk(ctx, session))) return null;
  return { saved: session.receiptEmail, suggested: session.customerEmail };
}

export async function saveReceiptEmail(ctx: PaymentContext, id: string, email: string, locale: PageLocale): Promise<string> {
  const session = await findCheckoutSession(ctx, id);
  if (!session) throw notFound('Checkout session');
  if (!(await receiptEmailAsk(ctx, session))) throw new AppError('Conflict', 'No receipt or refund notice of this checkout is to come.');
  const parsed = EMAIL.safeParse(email.trim());
  if (!parsed.success) {
    const message = 'Not an email address.';
    throw new AppError('ValidationError', message, { details: [{ path: 'email', message }] });
  }
  await setReceiptEmail(ctx.db, session.id, parsed.data, locale);
  return parsed.data;
}
