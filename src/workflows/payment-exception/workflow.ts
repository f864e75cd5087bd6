import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ExceptionActivities } from '../../activities/exceptions';
import type { PayoutActivities } from '../../activities/payouts';
import type { WebhookActivities } from '../../activities/webhooks';
import { decideException, initialException, nothingDue, type ExceptionEffect, type ExceptionEvent } from '../../domain/payment-exception';
import { checkRefundAddress, REFUND_ADDRESS_REFUSED } from '../../domain/refund-address';
import { DATABASE_ACTIVITY, LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { refundOnChain } from '../checkout-session/payout';
import { announceLinkPaid } from '../closing';
import { handleEvent } from '../decision-loop';
import { MerchantIdKey, PaymentStatusKey } from '../search-attributes';
import { emitAndDeliver, inRunDeliveries } from '../webhook-delivery/start';
import {
  acceptUpdate,
  exceptionStateQuery,
  refundUpdate,
  type AcceptResult,
  type ExceptionOutcome,
  type PaymentExceptionInput,
  type RefundResult,
} from './messages';

const records = proxyActivities<ExceptionActivities>(DATABASE_ACTIVITY);
const events = proxyLocalActivities<WebhookActivities>(LOCAL_DATABASE_ACTIVITY);
// Planning reads the chain (balance, gas estimate): short attempts, a bounded number of them. A
// reason no retry can fix fails at once (typed, for the operator's answer); a node that stays
// unreachable fails the update after the last attempt, and the operator asks again later.
const refunds = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['NotRefundable', 'PayoutImpossible', REFUND_ADDRESS_REFUSED, 'TransferWouldRevert'],
  },
});

/** How long an exception's run waits for an operator; a later action starts a new run (update-with-start). */
const OPERATOR_WINDOW = '90 days';

/**
 * One exception, workflow id = exception id: tells the merchant (`payment.exception`),
 * then waits for an operator. Accept runs here as an update, so it survives a worker crash between
 * its database write and its event: the write is one transaction, the event is idempotent per
 * (payment, type), and a replay continues where it stopped. Its own run rather than the payment's:
 * money may arrive long after the payment's run closed, and this run exists exactly as long as
 * someone may still resolve that money.
 */
export async function paymentException(input: PaymentExceptionInput): Promise<ExceptionOutcome> {
  let exception = initialException();
  // The merchant's events of this money are delivered by this run (webhook-delivery/start.ts).
  const deliveries = inRunDeliveries(events.markDeliveryFailed);
  const perform = async (effect: ExceptionEffect): Promise<ExceptionEvent | null> => {
    switch (effect.kind) {
      case 'markPaymentStatus':
        upsertSearchAttributes([{ key: PaymentStatusKey, value: effect.status }]);
        return null;
      case 'announceCompleted':
        await emitAndDeliver(() => events.emitPaymentEvent(effect.paymentId, 'completed', null), deliveries);
        return null;
      case 'sendRefund':
        return { kind: 'refundSent', ...(await refundOnChain(input.exceptionId, effect.payoutIds, deliveries)) };
      case 'refundNotSent':
        await records.exceptionRefundNotSent(effect.payoutIds, effect.reason);
        refunding = null;
        return null;
      case 'linkPaid':
        await announceLinkPaid(effect.paymentId, effect.linkId);
        return null;
    }
  };
  const handle = async (event: ExceptionEvent) => {
    exception = await handleEvent(decideException, perform, exception, event);
  };
  let accepting: Promise<AcceptResult> | null = null;
  // The refund plan under way or made: every request joins it. A failed plan is forgotten at once,
  // and a plan whose transfer then failed once that is recorded, so neither blocks a later refund.
  let refunding: Promise<RefundResult> | null = null;

  setHandler(exceptionStateQuery, () => exception.outcome);

  setHandler(acceptUpdate, async () => {
    accepting ??= (async () => {
      const accepted = await records.acceptException(input.exceptionId);
      await handle({ kind: 'accepted', accepted });
      return { exceptionId: input.exceptionId, paymentId: accepted.paymentId, paymentStatus: accepted.paymentStatus };
    })();
    return accepting;
  });

  // The money back on chain. The update plans it (payout rows written under the
  // exception's lock, so an acceptance can no longer take the same money) and answers; this run then
  // sends it, so the operator's call returns at once and the transfer survives crashes here. The
  // exception becomes `refunded` with the confirmed transfer, then `payment.refunded` fires.
  setHandler(
    refundUpdate,
    async (request: { address: string }): Promise<RefundResult> => {
      // Requests are taken one at a time: a second one waits for the plan under way and gets it
      // (the caller compares its address); if that plan failed, it plans anew with its own.
      for (let pending = refunding; pending; pending = refunding) {
        try {
          return await pending;
        } catch {
          if (refunding === pending) refunding = null;
        }
      }
      const planning = (async () => {
        const plan = await refunds.planRefund(input.exceptionId, request.address);
        await handle({ kind: 'refundPlanned', payoutIds: plan.payoutIds });
        return { exceptionId: plan.exceptionId, paymentId: plan.paymentId, address: plan.address, amountMicro: plan.amountMicro };
      })();
      refunding = planning;
      try {
        return await planning;
      } catch (err) {
        if (refunding === planning) refunding = null;
        throw err;
      }
    },
    {
      // What the address itself says (the planning activity checks the rest, with the database and the chain).
      validator: (request: { address: string }) => {
        const checked = checkRefundAddress(request?.address);
        if (!checked.ok) throw ApplicationFailure.nonRetryable(checked.message, REFUND_ADDRESS_REFUSED);
      },
    },
  );

  await emitAndDeliver(() => events.emitExceptionEvent(input.exceptionId, 'payment.exception'), deliveries);
  const stored = await records.exceptionStatus(input.exceptionId);
  // Whoever started this run (the session's run, the watcher, an operator's action), it carries its
  // payment's merchant and status for an operator's search; an acceptance moves the status on.
  const attributes = [
    ...(stored.merchantId ? [{ key: MerchantIdKey, value: stored.merchantId }] : []),
    ...(stored.paymentStatus ? [{ key: PaymentStatusKey, value: stored.paymentStatus }] : []),
  ];
  if (attributes.length > 0) upsertSearchAttributes(attributes);
  await handle({ kind: 'loaded', outcome: stored.status });
  // Waits for the operator, then pays out an acceptance or sends a refund back; a refund whose
  // transfer failed waits for the operator again (a new refund is a new plan).
  for (;;) {
    await condition(() => exception.outcome !== 'open' || !nothingDue(exception), OPERATOR_WINDOW);
    await condition(allHandlersFinished);
    if (nothingDue(exception)) break;
    await handle({ kind: 'resume' });
    if (exception.outcome !== 'open' && nothingDue(exception)) break;
  }
  // The run ends once its deliveries are done.
  await condition(() => deliveries.done());
  return exception.outcome;
}
