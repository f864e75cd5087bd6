import { findDelivery, listDeliveriesForPayment, listOrphanedDeliveries, setDeliveryStatus } from '../db/queries/webhooks';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../workflows/webhook-delivery/messages';
import type { PaymentContext } from './context';
import { startPaymentWorkflow, WorkflowAlreadyStartedError } from './temporal-call';

const deliveryInput = (ctx: PaymentContext, deliveryId: string): WebhookDeliveryInput => {
  const { webhooks } = ctx.config;
  return {
    deliveryId,
    retry: {
      baseSeconds: webhooks.retryBaseSeconds,
      maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
      windowHours: webhooks.retryWindowHours,
    },
  };
};

/** An operator's resend: the same delivery (id, event, body) on a fresh run of the retry schedule. */
export async function resendDelivery(ctx: PaymentContext, deliveryId: string): Promise<void> {
  await setDeliveryStatus(ctx.db, deliveryId, 'pending');
  await startPaymentWorkflow(ctx, {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    workflowId: `${deliveryId}-resend-${ctx.now().getTime()}`,
    args: [deliveryInput(ctx, deliveryId)],
    searchAttributes: [],
  });
}

/**
 * A delivery no attempt reached within this long was orphaned: every path that writes one attempts it
 * at once (the payment's run, a delivery workflow), so only a crash between the write and the first
 * attempt leaves it so — for example a worker killed after a transition wrote its event, whose retried
 * task then took another path. Five minutes: far past any first attempt, short against the 72 h window.
 */
export const ORPHANED_AFTER_SECONDS = 300;

/**
 * Issue 26 item 11: every stored event is delivered or visibly failed. An orphaned delivery gets its
 * own run of the retry schedule (workflow id `<delivery id>-orphan`, so several API processes sweeping
 * at once start it once); the schedule ends it `succeeded` or `failed`.
 */
export async function sweepOrphanedDeliveries(
  ctx: PaymentContext,
  olderThanSeconds = ORPHANED_AFTER_SECONDS,
): Promise<{ started: number }> {
  let started = 0;
  for (const deliveryId of await listOrphanedDeliveries(ctx.db, olderThanSeconds, 100)) {
    try {
      await startPaymentWorkflow(ctx, {
        workflowType: WEBHOOK_DELIVERY_WORKFLOW,
        workflowId: `${deliveryId}-orphan`,
        args: [deliveryInput(ctx, deliveryId)],
        searchAttributes: [],
      });
      started++;
    } catch (err) {
      // Started by an earlier sweep whose run has not attempted yet.
      if (!(err instanceof WorkflowAlreadyStartedError)) throw err;
    }
  }
  return { started };
}

/** Operators' reads of deliveries: one by id, or a payment's, each with its attempts. */
export function deliveryReads(ctx: PaymentContext) {
  return {
    find: (id: string) => findDelivery(ctx.db, id),
    forPayment: (paymentId: string) => listDeliveriesForPayment(ctx.db, paymentId),
  };
}
