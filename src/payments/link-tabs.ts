import { findLinkPaymentInProgress } from '../db/queries/link-sessions';
import { AppError } from '../domain/errors';
import type { PaymentContext } from './context';

/**
 * A link is paid at most once (decisions §5, §12): while one of its sessions is being paid (the
 * customer pressed Pay in another tab or window), another Pay is refused with words the customer
 * understands. Two Pays at the very same moment can still both pass; the completion then records
 * the second payment as a `duplicate` exception, so the money is never lost.
 */
export async function ensureLinkNotInProgress(ctx: PaymentContext, linkId: string, sessionId: string | null): Promise<void> {
  if (await findLinkPaymentInProgress(ctx.db, linkId, sessionId)) throw new LinkPaymentInProgress();
}

/** A Conflict the hosted pages tell in the customer's language (the API's envelope carries the English). */
export class LinkPaymentInProgress extends AppError {
  constructor() {
    super(
      'Conflict',
      'A payment for this link is already in progress in another tab or window. Please finish it there, or wait until it ends before trying again.',
    );
  }
}
