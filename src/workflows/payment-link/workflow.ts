import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { DATABASE_ACTIVITY } from '../activity-options';
import type { PaymentLinkActivities } from '../../activities/payment-links';
import { linkPaidSignal, linkStateQuery, type PaymentLinkInput, type PaymentLinkOutcome, type PaymentLinkStatus } from './messages';

const records = proxyActivities<PaymentLinkActivities>(DATABASE_ACTIVITY);

/**
 * One payment link (decisions §5), workflow id = link id: open until a session pays it (the
 * completion signals here) or until expiresAt, when it is expired in Postgres. The expiry write is
 * conditional on the link still being open, so a payment whose signal was lost is never undone.
 */
export async function paymentLink(input: PaymentLinkInput): Promise<PaymentLinkOutcome> {
  let status: PaymentLinkStatus = 'active';
  let paidSessionId: string | null = null;

  setHandler(linkStateQuery, () => ({ status, paidSessionId }));
  setHandler(linkPaidSignal, ({ sessionId }) => {
    paidSessionId ??= sessionId;
  });

  const remaining = Date.parse(input.expiresAt) - Date.now();
  if (remaining > 0) await condition(() => paidSessionId !== null, remaining);
  if (paidSessionId !== null) {
    status = 'paid';
    return { status, paidSessionId };
  }
  status = await records.expirePaymentLink(input.linkId);
  return { status, paidSessionId };
}
