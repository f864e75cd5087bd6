import { proxyActivities } from '@temporalio/workflow';
import { DATABASE_ACTIVITY } from '../activity-options';
import type { WebhookActivities } from '../../activities/webhooks';

import type { WebhookDeliveryInput } from './messages';

const records = proxyActivities<WebhookActivities>(DATABASE_ACTIVITY);

/**
 * One delivery's attempts: a single activity whose Temporal retry policy is the retry schedule of
 * decisions §8, so attempts survive worker restarts and keep their delivery and event ids, and
 * retries add nothing to the calling run's history. Past the window the delivery is marked failed
 * by `markFailed` (the caller's kind of database write). With `activityIdIsDelivery` the activity's
 * id is the delivery id (in a payment's run, where its logs and the Temporal UI then name the delivery);
 * the delivery workflow keeps the SDK's ids, which its recorded histories carry.
 */
export async function deliverWithRetries(
  input: WebhookDeliveryInput,
  { markFailed, activityIdIsDelivery = false }: { markFailed: (deliveryId: string) => Promise<void>; activityIdIsDelivery?: boolean },
): Promise<'succeeded' | 'failed'> {
  const { deliverWebhook } = proxyActivities<WebhookActivities>({
    ...(activityIdIsDelivery ? { activityId: input.deliveryId } : {}),
    // The POST itself is bounded by WEBHOOK_TIMEOUT_MS (10 s); this covers the database around it.
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: Math.round(input.retry.windowHours * 3_600_000),
    retry: {
      initialInterval: Math.round(input.retry.baseSeconds * 1000),
      backoffCoefficient: 2,
      maximumInterval: Math.round(input.retry.maxIntervalSeconds * 1000),
      nonRetryableErrorTypes: ['DeliveryRefused'],
    },
  });
  try {
    await deliverWebhook(input.deliveryId);
    return 'succeeded';
  } catch {
    await markFailed(input.deliveryId);
    return 'failed';
  }
}

/**
 * One webhook delivery in a workflow of its own (id = delivery id): what an operator's resend
 * starts, and how runs recorded before patch deliveries-in-run deliver, keeping up to 72 h of
 * retries out of the checkout session's history.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'succeeded' | 'failed'> {
  return deliverWithRetries(input, { markFailed: records.markDeliveryFailed });
}
