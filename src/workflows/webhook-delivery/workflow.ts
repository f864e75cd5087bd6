import { proxyActivities } from '@temporalio/workflow';
import { DATABASE_ACTIVITY } from '../activity-options';
import type { WebhookActivities } from '../../activities/webhooks';

import type { WebhookDeliveryInput } from './messages';

const records = proxyActivities<WebhookActivities>(DATABASE_ACTIVITY);

/**
 * One webhook delivery: a single activity whose Temporal retry policy is the retry schedule of
 * decisions §8, so attempts survive worker restarts and keep their delivery and event ids. Its own
 * workflow (id = delivery id) keeps up to 72 h of retries out of the checkout session's history.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'succeeded' | 'failed'> {
  const { deliverWebhook } = proxyActivities<WebhookActivities>({
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
    await records.markDeliveryFailed(input.deliveryId);
    return 'failed';
  }
}
