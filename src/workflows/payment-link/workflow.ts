import { proxyLocalActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { PaymentLinkActivities } from '../../activities/payment-links';
import { decideLink, initialLink, nextLinkDeadline, type LinkEffect, type LinkEvent } from '../../domain/payment-link';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { PaymentStatusKey } from '../search-attributes';
import { handleEvent, Inbox } from '../decision-loop';
import { linkDeactivatedSignal, linkPaidSignal, linkStateQuery, type PaymentLinkInput, type PaymentLinkOutcome } from './messages';

const records = proxyLocalActivities<PaymentLinkActivities>(LOCAL_DATABASE_ACTIVITY);

/**
 * One payment link, workflow id = link id: open until a session pays it (the
 * completion signals here) or until expiresAt. The rules are domain/payment-link.ts.
 */
export async function paymentLink(input: PaymentLinkInput): Promise<PaymentLinkOutcome> {
  let link = initialLink(Date.parse(input.expiresAt));
  const inbox = new Inbox<LinkEvent>();

  setHandler(linkStateQuery, () => ({ status: link.status, paidSessionId: link.paidSessionId }));
  setHandler(linkPaidSignal, ({ sessionId }) => inbox.push({ kind: 'paid', sessionId }));
  setHandler(linkDeactivatedSignal, () => inbox.push({ kind: 'deactivated' }));

  const perform = async (_: LinkEffect): Promise<LinkEvent> => ({
    kind: 'expiryWritten',
    status: await records.expirePaymentLink(input.linkId),
  });
  while (link.status === 'active') {
    const event = await inbox.next(nextLinkDeadline(link), (nowMs) => ({ kind: 'deadline', nowMs }));
    link = await handleEvent(decideLink, perform, link, event);
    // The link's status as an operator filters runs by it (the start set `active`).
    if (link.status !== 'active') upsertSearchAttributes([{ key: PaymentStatusKey, value: link.status }]);
  }
  return { status: link.status, paidSessionId: link.paidSessionId };
}
