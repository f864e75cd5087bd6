import type { WebhookSettings } from '../config';
import type { Database } from '../db/client';
import { findSessionsForEvent, type SessionEventContext } from '../db/queries/checkout-session-events';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { silentBusinessLog, type BusinessLog } from '../logging';
import type { PaymentStatus } from '../domain/payment-status';
import { postWebhook } from '../webhooks/post';
import { createWebhookAttempts } from './webhook-attempts';
import { createWebhookDeliveries, type EmittedEvent } from './webhook-deliveries';
import { createMoneyEvents } from './webhook-money-events';
import { createPaymentEvents } from './webhook-payment-events';

// A webhook's life in the worker: the event row and where it goes (webhook-deliveries.ts), written
// by its emitter (webhook-payment-events.ts for a checkout session's, webhook-money-events.ts for
// exceptions and refunds), then one signed POST per attempt (webhook-attempts.ts). A customer's mail
// about the same moment is recorded beside the event (customer-mail-queue.ts), never sent from here.

export type { EmittedEvent };

export interface WebhookActivityDeps {
  db: Database;
  secretsKey: Buffer;
  allowPrivateUrls: boolean;
  webhooks: WebhookSettings;
  now: () => Date;
  log?: BusinessLog;
  /** The POST of one attempt (default postWebhook): tests put a worker's death at the attempt's edges through it. */
  post?: typeof postWebhook;
}

/** Webhook side effects: the event row, its deliveries, and one signed POST per attempt. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  return createWebhookEvents(deps).activities;
}

/**
 * The activities, and what the session's transitions call inside their own activity: the
 * payment event with the session it was made from, and the first attempts with the rows the event's
 * write already holds, so neither is read again.
 */
export function createWebhookEvents({ log = silentBusinessLog, post = postWebhook, ...deps }: WebhookActivityDeps) {
  const { db } = deps;
  const deliveries = createWebhookDeliveries(deps);
  const webhookAttempts = createWebhookAttempts({ ...deps, log, post });
  const emitPaymentEventOf = createPaymentEvents({ db, now: deps.now, log, deliveries });
  const activities = {
    /**
     * The event of a status transition, stored once per (payment, type), with one
     * delivery per distinct target URL. Idempotent: a retry returns the same event and deliveries.
     */
    async emitPaymentEvent(paymentId: string, status: PaymentStatus, type?: 'payment.settled' | null): Promise<EmittedEvent> {
      return (await emitPaymentEventOf(paymentId, status, type, false)).emitted;
    },
    ...createMoneyEvents({ db, now: deps.now, log, deliveries }),
    ...webhookAttempts.activities,
  };

  return {
    activities,
    /** The payment event with the session it was made from, and its first attempts on the rows it wrote. */
    async emitPaymentEventWithFirstAttempts(
      paymentId: string,
      status: PaymentStatus,
      type?: 'payment.settled' | null,
      /** The session as the caller's own statement returned it (a move's write, a payout's read): not read again. */
      known?: SessionEventContext,
    ): Promise<{ emitted: EmittedEvent; session: CheckoutSessionRow }> {
      const { emitted, session, attempts } = await emitPaymentEventOf(paymentId, status, type, true, known);
      return { emitted: await activities.withFirstAttempts(emitted, attempts), session };
    },

    /** `payment.settled` of each of `paymentIds` (a confirmed payout's), their sessions read in one statement, their attempts' outcomes written in one. */
    async emitSettledEvents(paymentIds: string[]): Promise<EmittedEvent[]> {
      const known = await findSessionsForEvent(db, paymentIds);
      const made = await Promise.all(paymentIds.map((id) => emitPaymentEventOf(id, 'completed', 'payment.settled', true, known.get(id))));
      // Their first attempts together: one statement writes every outcome.
      return webhookAttempts.firstAttempts(made.map(({ emitted, attempts }) => ({ emitted, known: attempts })));
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
export type WebhookEvents = ReturnType<typeof createWebhookEvents>;
