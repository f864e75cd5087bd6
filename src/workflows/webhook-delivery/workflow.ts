import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import { DATABASE_ACTIVITY } from '../activity-options';
import type { WebhookActivities } from '../../activities/webhooks';

import type { WebhookDeliveryInput } from './messages';

const records = proxyActivities<WebhookActivities>(DATABASE_ACTIVITY);

/**
 * One delivery's attempts: a single activity whose Temporal retry policy is the retry schedule of
 * the webhook rules (docs/webhooks.md), so attempts survive worker restarts and keep their delivery and event ids, and
 * retries add nothing to the calling run's history. Its activity id is the delivery id (logs and the
 * Temporal UI name the delivery). Past the window the delivery is marked failed by `markFailed` (the
 * caller's kind of database write). With `afterFirstAttempt` the first attempt was made elsewhere
 * (deliverFirstLocally) and the first retry interval already waited: the schedule goes on from its
 * second interval.
 */
export async function deliverWithRetries(
  input: WebhookDeliveryInput,
  { markFailed, afterFirstAttempt = false }: { markFailed: (deliveryId: string) => Promise<void>; afterFirstAttempt?: boolean },
): Promise<'succeeded' | 'failed'> {
  const baseMs = Math.round(input.retry.baseSeconds * 1000);
  const maxMs = Math.round(input.retry.maxIntervalSeconds * 1000);
  const { deliverWebhook } = proxyActivities<WebhookActivities>({
    activityId: input.deliveryId,
    // The POST itself is bounded by WEBHOOK_TIMEOUT_MS (10 s); this covers the database around it.
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: Math.round(input.retry.windowHours * 3_600_000) - (afterFirstAttempt ? baseMs : 0),
    retry: {
      initialInterval: afterFirstAttempt ? Math.min(2 * baseMs, maxMs) : baseMs,
      backoffCoefficient: 2,
      maximumInterval: maxMs,
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

// A first attempt inside the workflow task (the run's own worker, no activity task): bounded like the
// durable activity's attempts, never retried here.
const firstAttempt = proxyLocalActivities<WebhookActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });

/**
 * A delivery whose first attempt is a local activity:
 * a receiver that answers 2xx costs the run one marker instead of an activity's three events and the
 * workflow task that carries its result back. The attempt is logged like any other (beginAttempt
 * before the POST), so a worker dying mid-POST leaves it in the delivery log and the next worker's
 * replay makes it again. Any other outcome is the durable activity's job after the schedule's first
 * interval, as if the activity had made the first attempt itself; a refused target is given up at once.
 * The local activity holds the workflow task for the POST (10 s at most): commands of the same task,
 * such as the payout's activity, go to the server once it has answered.
 */
export async function deliverFirstLocally(
  input: WebhookDeliveryInput,
  options: { markFailed: (deliveryId: string) => Promise<void> },
): Promise<'succeeded' | 'failed'> {
  try {
    await firstAttempt.deliverWebhook(input.deliveryId);
    return 'succeeded';
  } catch (err) {
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'DeliveryRefused') {
      await options.markFailed(input.deliveryId);
      return 'failed';
    }
  }
  return retryAfterFirstAttempt(input, options);
}

/** After a first attempt that failed (made here or by the emitting activity): the schedule from its first interval. */
export async function retryAfterFirstAttempt(
  input: WebhookDeliveryInput,
  options: { markFailed: (deliveryId: string) => Promise<void> },
): Promise<'succeeded' | 'failed'> {
  await sleep(Math.round(input.retry.baseSeconds * 1000));
  return deliverWithRetries(input, { ...options, afterFirstAttempt: true });
}

// An operator's attempt now (`once`): one durable attempt, not retried; the schedule that still runs
// for the delivery owns its retries and its end.
const singleAttempt = proxyActivities<WebhookActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });

/**
 * One webhook delivery in a workflow of its own: what an operator's resend and the sweep of orphaned
 * deliveries start; with `once`, a single attempt (a resend while the schedule backs off).
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'succeeded' | 'failed'> {
  if (input.once) {
    try {
      await singleAttempt.deliverWebhook(input.deliveryId);
      return 'succeeded';
    } catch {
      return 'failed';
    }
  }
  if (input.afterFirstAttempt) return retryAfterFirstAttempt(input, { markFailed: records.markDeliveryFailed });
  return deliverWithRetries(input, { markFailed: records.markDeliveryFailed });
}
