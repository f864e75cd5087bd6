import { setDeliveryStatus } from '../db/queries/webhooks';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../workflows/webhook-delivery/messages';
import type { PaymentContext } from './context';
import { startPaymentWorkflow } from './temporal-call';

/** An operator's resend: the same delivery (id, event, body) on a fresh run of the retry schedule. */
export async function resendDelivery(ctx: PaymentContext, deliveryId: string): Promise<void> {
  const { config } = ctx;
  await setDeliveryStatus(ctx.db, deliveryId, 'pending');
  const input: WebhookDeliveryInput = {
    deliveryId,
    retry: { baseSeconds: config.webhooks.retryBaseSeconds, maxIntervalSeconds: config.webhooks.retryMaxIntervalSeconds, windowHours: config.webhooks.retryWindowHours },
  };
  await startPaymentWorkflow(ctx, {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    workflowId: `${deliveryId}-resend-${ctx.now().getTime()}`,
    args: [input],
    searchAttributes: [],
  });
}
