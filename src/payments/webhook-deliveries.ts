import {
  findDelivery,
  findDeliveryWithEvent,
  insertDeliveriesOnce,
  insertEventOnce,
  INTERRUPTED_ATTEMPT,
  listAttempts,
  listDeliveriesForMerchant,
  listDeliveriesForPayment,
  listOrphanedDeliveries,
  listEndpoints,
  setDeliveryStatus,
  type AttemptRow,
  type DeliveryRow,
} from '../db/queries/webhooks';
import { AppError, notFound } from '../domain/errors';
import { newDeliveryId, newEventId } from '../domain/ids';
import { testEventBody } from '../domain/webhook-event';
import { TEST_EVENT_TYPE } from '../domain/webhook-event-types';
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

export interface RetrySchedule {
  baseSeconds: number;
  maxIntervalSeconds: number;
}

/** An attempt's limit (the delivery activity's startToCloseTimeout): an attempt logged and unfinished past it died with its worker. */
const ATTEMPT_LIMIT_MS = 30_000;

/**
 * When a pending delivery's retry schedule (decisions §8) makes its next attempt: the interval after
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
  const intervalSeconds = Math.min(schedule.baseSeconds * 2 ** (attempts.length - 1), schedule.maxIntervalSeconds);
  return new Date(endedAt + intervalSeconds * 1000);
}

/**
 * An operator's resend: the same delivery (id, event, body) on a fresh run of the retry schedule,
 * once its schedule has ended (succeeded or failed). While the schedule runs (a durable activity in
 * the payment's run, backing off), a second run would attempt in parallel with it and could mark the
 * delivery failed at its own window's end while the first still retries; so the answer is 409 with
 * when the next attempt is due (message and Retry-After), and nothing changes.
 */
export async function resendDelivery(
  ctx: PaymentContext,
  deliveryId: string,
  /** The merchant's own dashboard: a delivery of another merchant's event is not found. */
  merchantId?: string,
): Promise<{ deliveryId: string; status: 'pending' }> {
  const found = /^dlv_[A-Za-z0-9]{24}$/.test(deliveryId) ? await findDeliveryWithEvent(ctx.db, deliveryId) : undefined;
  if (!found || (merchantId !== undefined && found.event?.merchantId !== merchantId)) throw notFound('Delivery');
  const { delivery } = found;
  if (delivery.status === 'pending') {
    const { webhooks } = ctx.config;
    const next = nextAttemptAt(
      await listAttempts(ctx.db, deliveryId),
      {
        baseSeconds: webhooks.retryBaseSeconds,
        maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
      },
      ctx.now(),
    );
    if (!next) throw new AppError('Conflict', 'This delivery is being attempted right now; list its deliveries again in a few seconds.');
    const seconds = Math.max(0, Math.ceil((next.getTime() - ctx.now().getTime()) / 1000));
    throw new AppError(
      'Conflict',
      `This delivery is still being retried on its schedule: its next attempt is due at ${next.toISOString()} (in ${seconds} s). Resend it once it has succeeded or failed.`,
      { retryAfterSeconds: seconds },
    );
  }
  await setDeliveryStatus(ctx.db, deliveryId, 'pending');
  await startPaymentWorkflow(ctx, {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    workflowId: `${deliveryId}-resend-${ctx.now().getTime()}`,
    args: [deliveryInput(ctx, deliveryId)],
    searchAttributes: [],
  });
  return { deliveryId, status: 'pending' };
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
    searchAttributes: [],
  });
  return { deliveryId: delivery.id, eventId, status: 'pending' };
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

/** Reads of deliveries: one by id, a payment's (operators), a merchant's own log (dashboard), each with its attempts. */
export function deliveryReads(ctx: PaymentContext) {
  return {
    find: (id: string) => findDelivery(ctx.db, id),
    forPayment: (paymentId: string) => listDeliveriesForPayment(ctx.db, paymentId),
    forMerchant: (merchantId: string, filters: { status?: DeliveryRow['status'] | undefined; eventType?: string | undefined }) =>
      listDeliveriesForMerchant(ctx.db, { merchantId, ...filters, limit: 100 }),
  };
}
