import { listLinkSessionFacts, markTakingMoney, restoreTakingMoney } from '../db/queries/link-sessions';
import { lockPaymentLink } from '../db/queries/payment-links';
import { AppError } from '../domain/errors';
import { linkPayer, type PayingRail } from '../domain/link-payer';
import type { PaymentContext } from './context';
import { LinkAlreadyPaid } from './session-standing';

// A link's sessions are the tabs and windows of its customers. Its money is taken by one of them at a
// time (domain/link-payer.ts): a second payment would only be a duplicate an operator must refund.

/** Refuses when another session of the link is taking its money (no lock: a new tab's first look). */
export async function ensureLinkNotInProgress(ctx: PaymentContext, linkId: string, sessionId: string | null): Promise<void> {
  if (linkPayer(await listLinkSessionFacts(ctx.db, linkId, sessionId), ctx.now())) throw new LinkPaymentInProgress();
}

/** What a claim took, to give back if the payment it was for never started. */
export interface LinkClaim {
  sessionId: string;
  rail: PayingRail;
  at: Date;
  previous: Date | null;
}

/**
 * The session starts taking its link's money on `rail`, unless another session of the link is
 * (LinkPaymentInProgress) or paid it (LinkAlreadyPaid). Check and mark are one step under the link's
 * row lock, so of two tabs pressing Pay at once exactly one gets through: the second reads the
 * first's mark once the first commits.
 */
export async function claimLink(ctx: PaymentContext, linkId: string, sessionId: string, rail: PayingRail): Promise<LinkClaim | null> {
  return ctx.db.transaction(async (tx) => {
    const link = await lockPaymentLink(tx, linkId);
    if (link?.status === 'paid' && link.paidSessionId !== sessionId) throw new LinkAlreadyPaid();
    if (linkPayer(await listLinkSessionFacts(tx, linkId, sessionId), ctx.now())) throw new LinkPaymentInProgress();
    const marked = await markTakingMoney(tx, sessionId, rail);
    return marked ? { sessionId, rail, ...marked } : null;
  });
}

/**
 * A Pay or a deposit that failed before it handed anything to the customer (no quote, no provider
 * payment) frees the link again; a later claim of the same session keeps its own.
 */
export async function releaseLinkClaim(ctx: PaymentContext, claim: LinkClaim | null): Promise<void> {
  if (claim) await restoreTakingMoney(ctx.db, claim);
}

/** A Conflict the hosted pages tell in the customer's language (the API's envelope carries the English). */
export class LinkPaymentInProgress extends AppError {
  constructor() {
    super(
      'Conflict',
      'A payment for this link is already in progress in another tab or window. Finish it there, or cancel it there (or wait until it ends) and try again here. Nothing was taken here.',
    );
  }
}
