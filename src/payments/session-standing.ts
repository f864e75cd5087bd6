import type { CheckoutSessionRow, SessionWithMerchant } from '../db/queries/checkout-sessions';
import { findMerchant } from '../db/queries/merchants';
import { findPaymentLink } from '../db/queries/payment-links';
import { AppError } from '../domain/errors';
import type { PaymentContext } from './context';

// Whether an open session may still take money, from Postgres alone, so Pay and the deposit
// instructions refuse at once without waiting for any workflow (a link is paid once).

export interface SessionStanding {
  /** Another session of the session's payment link paid it: this one must not take a second payment. */
  linkPaid: boolean;
  /** The merchant is approved (not pending review, not suspended): only then is new money taken. */
  merchantApproved: boolean;
}

/** A merchant takes new money only while approved. */
export async function merchantTakesPayments(ctx: PaymentContext, merchantId: string): Promise<boolean> {
  return (await findMerchant(ctx.db, merchantId))?.status === 'approved';
}

export async function sessionStanding(
  ctx: PaymentContext,
  session: Pick<CheckoutSessionRow, 'id' | 'merchantId' | 'paymentLinkId'>,
): Promise<SessionStanding> {
  const [merchantApproved, link] = await Promise.all([
    merchantTakesPayments(ctx, session.merchantId),
    session.paymentLinkId ? findPaymentLink(ctx.db, session.paymentLinkId) : undefined,
  ]);
  return { merchantApproved, linkPaid: link?.status === 'paid' && link.paidSessionId !== session.id };
}

/** Before Pay or the deposit instructions: a paid link is 409 (the page says it was paid), an unapproved merchant 403. */
export async function ensureSessionTakesMoney(
  ctx: PaymentContext,
  session: Pick<CheckoutSessionRow, 'id' | 'merchantId' | 'paymentLinkId'>,
): Promise<void> {
  ensureStandingTakesMoney(await sessionStanding(ctx, session));
}

/** The standing a session read with its merchant and its link (findSessionWithMerchant) holds already: no read of its own. */
export const standingOfRow = (s: SessionWithMerchant): SessionStanding => ({
  linkPaid: s.linkPaidBy !== null && s.linkPaidBy !== s.id,
  merchantApproved: s.merchantTakesMoney,
});

/** ensureSessionTakesMoney's refusals, of a standing already known. */
export function ensureStandingTakesMoney(standing: SessionStanding): void {
  if (standing.linkPaid) throw new LinkAlreadyPaid();
  if (!standing.merchantApproved) throw new MerchantNotAccepting();
}

/** A Conflict the hosted pages answer with the paid page (the API's envelope carries the English). */
export class LinkAlreadyPaid extends AppError {
  constructor() {
    super('Conflict', 'This payment link has already been paid through another checkout; no further payment is taken.');
  }
}

/** The merchant is not approved (pending review or suspended): no new money, whatever the face. */
export class MerchantNotAccepting extends AppError {
  constructor() {
    super('AccountNotApproved', 'This merchant cannot take payments right now.');
  }
}
