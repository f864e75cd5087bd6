import { insertEventOnce } from '../db/queries/events';
import { INTERRUPTED_ATTEMPT, listOrphanedDeliveries } from '../db/queries/webhook-attempts';
import { listAttempts, listDeliveriesForMerchant, listDeliveriesForPayment, type AttemptRow } from '../db/queries/webhook-delivery-log';
import { listEndpoints } from '../db/queries/webhook-endpoints';
import { findDelivery, findDeliveryWithEvent, insertDeliveriesOnce, setDeliveryStatus, type DeliveryRow } from '../db/queries/webhooks';
import { AppError, notFound } from '../domain/errors';
import { newDeliveryId, newEventId } from '../domain/ids';
import { testEventBody } from '../domain/webhook-event';
import { TEST_EVENT_TYPE } from '../domain/webhook-event-types';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../workflows/webhook-delivery/messages';
import { MerchantIdKey } from '../workflows/search-attributes';
import type { PaymentContext } from './context';
import { startPaymentWorkflow, WorkflowAlreadyStartedError } from './temporal-call';

const deliveryInput = (ctx: PaymentContext, deliveryId: string, once = false): WebhookDeliveryInput => {
  const { webhooks } = ctx.config;
  return {
    deliveryId,
    ...(once ? { once: true } : {}),
    retry: {
      baseSeconds: webhooks.retryBaseSeconds,
      maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
      windowHours: webhooks.retryWindowHours,
    },
  };
};

/**
 * Every run carries its merchant's `MerchantId`, so an operator finds a merchant's
 * delivery runs in the Temporal UI as their payments' (an event always has its merchant; none: none).
 */
const merchantAttributes = (merchantId: string | null | undefined) => (merchantId ? [{ key: MerchantIdKey, value: merchantId }] : []);

export interface RetrySchedule {
  baseSeconds: number;
  maxIntervalSeconds: number;
}

/**
 * An attempt's limit (the startToCloseTimeout of every activity that makes one, the POST's 10 s
 * inside it): an attempt logged and unfinished past it died with its worker.
 */
const ATTEMPT_LIMIT_MS = 30_000;

/**
 * When a pending delivery's retry schedule makes its next attempt: the interval after
 * the n-th attempt is base·2^(n−1), at most the maximum, counted from the n-th attempt's end (Temporal
 * schedules a retry from the failure; an attempt cut short by a dying worker ends at its 30 s limit).
 * Read from the delivery log, so after an operator's resend (a fresh schedule over an older log) it is
 * the latest the next attempt can come. Null while an attempt is under way, or before the first.
 */
export function nextAttemptAt(
  attempts: Pick<AttemptRow, 'attemptedAt' | 'durationMs' | 'statusCode' | 'error'>[],
  schedule: RetrySchedule,
  now: Date,
): Date | null {
  const last = attempts.at(-1);
  if (!last) return null;
  const unfinished = last.statusCode === null && last.error === INTERRUPTED_ATTEMPT;
  if (unfinished && now.getTime() - last.attemptedAt.getTime() < ATTEMPT_LIMIT_MS) return null;
  const endedAt = last.attemptedAt.getTime() + (unfinished ? ATTEMPT_LIMIT_MS : last.durationMs);
  return new Date(endedAt + retryIntervalSeconds(attempts.length, schedule) * 1000);
}

/** The wait after the n-th attempt: base·2^(n−1), at most the maximum. */
const retryIntervalSeconds = (n: number, schedule: RetrySchedule) =>
  Math.min(schedule.baseSeconds * 2 ** (n - 1), schedule.maxIntervalSeconds);

export interface Resent {
  deliveryId: string;
  status: 'pending';
  /** `attempt_now`: one attempt now, beside the schedule still running; `new_schedule`: a fresh run of the schedule after it ended. */
  mode: 'attempt_now' | 'new_schedule';
}

/**
 * An operator's resend: the same delivery (id, event, body), freshly signed.
 * - Still pending and backing off (or never attempted): one attempt now, in a run of its own that makes
 *   that single attempt and marks nothing failed; the schedule keeps running beside it, and its next
 *   attempt finds the delivery succeeded and sends nothing. A second schedule would attempt in
 *   parallel and could mark the delivery failed at its own window's end while the first still retried.
 * - An attempt in flight: 409, with when the schedule's next attempt is due should this one fail
 *   (message; "at the latest", since the log also counts attempts made now, which only lengthen the
 *   interval it computes) and Retry-After until this attempt is over at the latest; nothing changes.
 * - Succeeded or failed: a fresh run of the retry schedule.
 */
export async function resendDelivery(
  ctx: PaymentContext,
  deliveryId: string,
  /** The merchant's own dashboard: a delivery of another merchant's event is not found. */
  merchantId?: string,
): Promise<Resent> {
  const found = /^dlv_[A-Za-z0-9]{24}$/.test(deliveryId) ? await findDeliveryWithEvent(ctx.db, deliveryId) : undefined;
  if (!found || (merchantId !== undefined && found.event?.merchantId !== merchantId)) throw notFound('Delivery');
  const { delivery } = found;
  const stamp = ctx.now().getTime();
  if (delivery.status === 'pending') {
    const { webhooks } = ctx.config;
    const attempts = await listAttempts(ctx.db, deliveryId);
    const last = attempts.at(-1);
    if (
      last &&
      nextAttemptAt(
        attempts,
        { baseSeconds: webhooks.retryBaseSeconds, maxIntervalSeconds: webhooks.retryMaxIntervalSeconds },
        ctx.now(),
      ) === null
    ) {
      const endsBy = last.attemptedAt.getTime() + webhooks.timeoutMs;
      const next = new Date(
        endsBy +
          retryIntervalSeconds(attempts.length, {
            baseSeconds: webhooks.retryBaseSeconds,
            maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
          }) *
            1000,
      );
      const seconds = Math.max(1, Math.ceil((endsBy - stamp) / 1000));
      throw new AppError(
        'Conflict',
        `An attempt of this delivery is under way (started at ${last.attemptedAt.toISOString()}); if it fails, its next attempt is due at ${next.toISOString()} at the latest. Resend after ${seconds} s to attempt at once.`,
        { retryAfterSeconds: seconds },
      );
    }
    await startPaymentWorkflow(ctx, {
      workflowType: WEBHOOK_DELIVERY_WORKFLOW,
      workflowId: `${deliveryId}-now-${stamp}`,
      args: [deliveryInput(ctx, deliveryId, true)],
      searchAttributes: merchantAttributes(found.event?.merchantId),
    });
    return { deliveryId, status: 'pending', mode: 'attempt_now' };
  }
  await setDeliveryStatus(ctx.db, deliveryId, 'pending');
  await startPaymentWorkflow(ctx, {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    workflowId: `${deliveryId}-resend-${stamp}`,
    args: [deliveryInput(ctx, deliveryId)],
    searchAttributes: merchantAttributes(found.event?.merchantId),
  });
  return { deliveryId, status: 'pending', mode: 'new_schedule' };
}

/**
 * A test event to one of the merchant's endpoints (enabled or not, whatever event types it chose):
 * stored and delivered like every event — signed with the endpoint's secret, in the delivery log, on
 * the retry schedule, resendable — in a delivery run of its own. Should that run fail to start, the
 * sweep of orphaned deliveries starts it.
 */
export async function sendTestEvent(
  ctx: PaymentContext,
  merchantId: string,
  endpointId: string,
): Promise<{ deliveryId: string; eventId: string; status: 'pending' }> {
  const endpoint = (await listEndpoints(ctx.db, merchantId)).find((e) => e.id === endpointId);
  if (!endpoint) throw notFound('Webhook endpoint');
  const eventId = newEventId();
  const delivery = await ctx.db.transaction(async (tx) => {
    await insertEventOnce(tx, {
      id: eventId,
      paymentId: endpoint.id,
      merchantId,
      type: TEST_EVENT_TYPE,
      subject: eventId,
      body: JSON.stringify(testEventBody({ eventId, merchantId, endpointId: endpoint.id, createdAt: ctx.now() })),
    });
    const [row] = await insertDeliveriesOnce(tx, [
      { id: newDeliveryId(), eventId, paymentId: endpoint.id, url: endpoint.url, secretSource: 'endpoint', secretRef: endpoint.id },
    ]);
    return row!;
  });
  await startPaymentWorkflow(ctx, {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    workflowId: delivery.id,
    args: [deliveryInput(ctx, delivery.id)],
    searchAttributes: merchantAttributes(merchantId),
  });
  return { deliveryId: delivery.id, eventId, status: 'pending' };
}

/**
 * How long past the moment something would have attempted a delivery before the sweep takes it
 * (listOrphanedDeliveries): for one never attempted, from its write (every path that writes one
 * attempts it at once, so only a crash between the write and the first attempt leaves it so); for
 * one whose last attempt was interrupted, from when the run that owned it would have retried it at
 * the latest (a worker killed mid-attempt, whose run then took another path). Five minutes: far past
 * any replay or retry of a live run, short against the 72 h window.
 */
export const ORPHANED_AFTER_SECONDS = 300;

/**
 * Every stored event is delivered or visibly failed: an orphaned delivery gets its own run of the
 * retry schedule, whose first attempt is at once (an interrupted attempt's POST may or may not have
 * reached the receiver; at least once means sending it again). The workflow id names the delivery
 * and how many attempts it had (`<delivery id>-orphan`, then `-orphan-<n>`), so several API processes
 * sweeping at once start it once, and a delivery orphaned again later gets a run of its own.
 *
 * Why this never sets a second schedule going beside a live one: an interrupted attempt is taken
 * only once it is older than any live attempt can be (ATTEMPT_LIMIT_MS), plus the interval after
 * which its own run would have retried it, plus ORPHANED_AFTER_SECONDS, with no newer attempt in
 * the log. A run that still owns it writes that newer attempt well before: a replay runs the dead
 * worker's local activity again as soon as another worker takes the task, and Temporal retries a
 * durable attempt at its timeout plus that interval. Only if no worker ran at all for that long could
 * the owning run's retry come after this run started; the two would then attempt side by side,
 * each logged, until one succeeds, after which neither sends again.
 */
export async function sweepOrphanedDeliveries(
  ctx: PaymentContext,
  olderThanSeconds = ORPHANED_AFTER_SECONDS,
): Promise<{ started: number }> {
  const { webhooks } = ctx.config;
  const orphans = await listOrphanedDeliveries(ctx.db, {
    olderThanSeconds,
    limitSeconds: ATTEMPT_LIMIT_MS / 1000,
    schedule: { baseSeconds: webhooks.retryBaseSeconds, maxIntervalSeconds: webhooks.retryMaxIntervalSeconds },
    limit: 100,
  });
  let started = 0;
  for (const { id: deliveryId, merchantId, attemptCount } of orphans) {
    try {
      await startPaymentWorkflow(ctx, {
        workflowType: WEBHOOK_DELIVERY_WORKFLOW,
        workflowId: attemptCount === 0 ? `${deliveryId}-orphan` : `${deliveryId}-orphan-${attemptCount}`,
        args: [deliveryInput(ctx, deliveryId)],
        searchAttributes: merchantAttributes(merchantId),
      });
      started++;
    } catch (err) {
      // Started by an earlier sweep whose run has not attempted yet.
      if (!(err instanceof WorkflowAlreadyStartedError)) throw err;
    }
  }
  return { started };
}

/** Reads of deliveries: one by id, a payment's (operators), a merchant's own log (dashboard), each with its attempts. */
export function deliveryReads(ctx: PaymentContext) {
  return {
    find: (id: string) => findDelivery(ctx.db, id),
    forPayment: (paymentId: string) => listDeliveriesForPayment(ctx.db, paymentId),
    forMerchant: (merchantId: string, filters: { status?: DeliveryRow['status'] | undefined; eventType?: string | undefined }) =>
      listDeliveriesForMerchant(ctx.db, { merchantId, ...filters, limit: 100 }),
  };
}
