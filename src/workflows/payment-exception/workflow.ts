import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { ExceptionActivities } from '../../activities/exceptions';
import type { WebhookActivities } from '../../activities/webhooks';
import { DATABASE_ACTIVITY } from '../activity-options';
import { payOutSession } from '../checkout-session/payout';
import { startDeliveries } from '../webhook-delivery/start';
import {
  acceptUpdate,
  exceptionStateQuery,
  refundUpdate,
  REFUND_UNAVAILABLE,
  type AcceptResult,
  type ExceptionOutcome,
  type PaymentExceptionInput,
} from './messages';

const records = proxyActivities<ExceptionActivities>(DATABASE_ACTIVITY);
const events = proxyActivities<WebhookActivities>(DATABASE_ACTIVITY);

/** How long an exception's run waits for an operator; a later action starts a new run (update-with-start). */
const OPERATOR_WINDOW = '90 days';

/**
 * One exception (decisions §12), workflow id = exception id: tells the merchant (`payment.exception`),
 * then waits for an operator. Accept runs here as an update, so it survives a worker crash between
 * its database write and its event: the write is one transaction, the event is idempotent per
 * (payment, type), and a replay continues where it stopped. Its own run rather than the payment's:
 * money may arrive long after the payment's run closed, and this run exists exactly as long as
 * someone may still resolve that money.
 */
export async function paymentException(input: PaymentExceptionInput): Promise<ExceptionOutcome> {
  let outcome: ExceptionOutcome = 'open';
  let accepting: Promise<AcceptResult> | null = null;
  // Set by an acceptance whose money is on chain: paid out by this run, not inside the update, so the
  // operator's call answers at once and the payout (minutes of confirmations) survives crashes here.
  let payoutDue = false;

  setHandler(exceptionStateQuery, () => outcome);

  setHandler(acceptUpdate, async () => {
    accepting ??= (async () => {
      const accepted = await records.acceptException(input.exceptionId);
      outcome = 'accepted';
      payoutDue = accepted.payout;
      if (accepted.completedNow || accepted.paymentStatus === 'completed') await startDeliveries(await events.emitPaymentEvent(accepted.paymentId, 'completed'));
      return { exceptionId: input.exceptionId, paymentId: accepted.paymentId, paymentStatus: accepted.paymentStatus };
    })();
    return accepting;
  });

  setHandler(
    refundUpdate,
    async (_request: { address: string }): Promise<AcceptResult> => {
      throw ApplicationFailure.nonRetryable('refunds need on-chain payouts', REFUND_UNAVAILABLE);
    },
    {
      validator: (_request: { address: string }) => {
        // Refunds send the credited amount back on chain: they wait for the payout machinery.
        throw ApplicationFailure.nonRetryable('Refunds are not available yet: they need on-chain payouts.', REFUND_UNAVAILABLE);
      },
    },
  );

  await startDeliveries(await events.emitExceptionEvent(input.exceptionId));
  const status = await records.exceptionStatus(input.exceptionId);
  if (status !== 'open') outcome = status;
  await condition(() => outcome !== 'open', OPERATOR_WINDOW);
  await condition(allHandlersFinished);
  // Decisions §12: an accepted payment is paid out as usual (and payment.settled fires). Runs recorded
  // before this version never reach patched(), so their histories replay unchanged.
  if (payoutDue && patched('payout-after-accept')) await payOutSession(input.paymentId);
  return outcome;
}
