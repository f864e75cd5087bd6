import { ApplicationFailure } from '@temporalio/activity';
import type { WebhookSettings } from '../config';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import { findSite } from '../db/queries/sites';
import type { EventRow } from '../db/queries/events';
import { beginAttempt, finishAttempt, finishAttempts } from '../db/queries/webhook-attempts';
import { merchantWebhookSecret, type EndpointRow } from '../db/queries/webhook-endpoints';
import { findDeliveryWithEvent, setDeliveryStatus, type DeliveryRow } from '../db/queries/webhooks';
import { issueWebhookSecret } from '../domain/credentials';
import { decryptSecret, encryptSecret } from '../domain/secretbox';
import { deliverySignatureHeaders } from '../domain/signatures';
import type { postWebhook } from '../webhooks/post';
import type { EmittedEvent } from './webhook-deliveries';

export const USER_AGENT = 'svc-webhooks/1.0';

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

/** What an attempt reads before it signs: the delivery, its event, and the endpoint whose secret signs it (if one does). */
export interface AttemptSubject {
  delivery: DeliveryRow;
  event: EventRow | null;
  endpoint: Pick<EndpointRow, 'secretEncrypted'> | null;
  /** The merchant's default secret (sealed) as the event's write read it: not read again for a `merchant` delivery. */
  merchantSecret?: string | null;
  /** The attempt its insert began (insertDeliveriesBegun): not begun again. */
  attemptId?: number | undefined;
}

export interface WebhookAttemptDeps {
  db: Database;
  secretsKey: Buffer;
  allowPrivateUrls: boolean;
  webhooks: WebhookSettings;
  now: () => Date;
  log: BusinessLog;
  post: typeof postWebhook;
}

/** A delivery's attempts: each signed with a fresh timestamp, logged as begun before its POST, its outcome written after. */
export function createWebhookAttempts({ db, secretsKey, allowPrivateUrls, webhooks, now, log, post }: WebhookAttemptDeps) {
  /** `endpoint` is the delivery's endpoint as its attempt read it (null when deleted, or when another secret signs). */
  async function secretFor(
    delivery: DeliveryRow,
    endpoint: Pick<EndpointRow, 'secretEncrypted'> | null,
    merchantSecret: string | null = null,
  ): Promise<string> {
    if (delivery.secretSource === 'endpoint') {
      if (!endpoint) throw ApplicationFailure.nonRetryable(`endpoint ${delivery.secretRef} is gone`, 'DeliveryRefused');
      return decryptSecret(secretsKey, endpoint.secretEncrypted);
    }
    if (delivery.secretSource === 'site') {
      const site = await findSite(db, delivery.secretRef);
      if (!site) throw ApplicationFailure.nonRetryable(`site ${delivery.secretRef} is gone`, 'DeliveryRefused');
      return decryptSecret(secretsKey, site.webhookSecretEncrypted);
    }
    const sealed =
      merchantSecret ?? (await merchantWebhookSecret(db, delivery.secretRef, () => encryptSecret(secretsKey, issueWebhookSecret())));
    if (!sealed) throw ApplicationFailure.nonRetryable(`merchant ${delivery.secretRef} has no webhook secret`, 'DeliveryRefused');
    return decryptSecret(secretsKey, sealed);
  }

  /** An attempt's POST made, its outcome not yet written. */
  type Sent = {
    subject: AttemptSubject;
    attemptId: number;
    result: Awaited<ReturnType<typeof post>>;
    succeeded: boolean;
    error: string | null;
  };

  /** The POST of one attempt, logged as begun before it is sent; undefined for a delivery already delivered. */
  async function send(subject: AttemptSubject): Promise<Sent | undefined> {
    const { delivery, event, endpoint, merchantSecret, attemptId: begun } = subject;
    if (delivery.status === 'succeeded') return undefined;
    if (!event) throw ApplicationFailure.nonRetryable(`no event ${delivery.eventId}`, 'DeliveryRefused');
    const secret = await secretFor(delivery, endpoint, merchantSecret);
    const t = Math.floor(now().getTime() / 1000);
    const attemptId = begun ?? (await beginAttempt(db, delivery.id));
    const result = await post({
      url: delivery.url,
      body: event.body,
      timeoutMs: webhooks.timeoutMs,
      allowPrivate: allowPrivateUrls,
      headers: {
        'user-agent': USER_AGENT,
        'content-type': 'application/json',
        'svc-delivery-id': delivery.id,
        'svc-event-id': event.id,
        'svc-event-type': event.type,
        ...deliverySignatureHeaders(secret, event.id, t, event.body),
      },
    });
    const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    return { subject, attemptId, result, succeeded, error: succeeded ? null : (result.error ?? `HTTP ${result.statusCode}`) };
  }

  const outcomeOf = ({ attemptId, subject, result, error, succeeded }: Sent) => ({
    attemptId,
    deliveryId: subject.delivery.id,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error,
    succeeded,
  });

  /** After its outcome is written: the attempt logged, and a failure thrown for the retry schedule. */
  function concluded({ subject: { delivery, event }, result, succeeded, error }: Sent): void {
    // The target's host only: a merchant's URL may carry a token in its path or query.
    log(succeeded ? 'webhook.delivered' : 'webhook.attempt_failed', {
      paymentId: delivery.paymentId,
      merchantId: event!.merchantId,
      deliveryId: delivery.id,
      eventId: event!.id,
      eventType: event!.type,
      target: hostOf(delivery.url),
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      ...(error ? { error } : {}),
    });
    if (succeeded) return;
    if (result.refused) throw ApplicationFailure.nonRetryable(error, 'DeliveryRefused');
    throw ApplicationFailure.retryable(error, 'DeliveryFailed');
  }

  /** One attempt of a delivery as read (deliverWebhook) or as just written (withFirstAttempts' known rows). */
  async function attempt(subject: AttemptSubject): Promise<void> {
    const sent = await send(subject);
    if (!sent) return;
    await finishAttempt(db, outcomeOf(sent));
    concluded(sent);
  }

  /**
   * withFirstAttempts for several events at once: every POST at once, then their outcomes in one
   * statement (finishAttempts), each then logged and judged as attempt() does. A delivery without
   * its rows at hand (a retried activity's) is attempted on its own (deliverWebhook).
   */
  async function firstAttempts(
    events: readonly { emitted: EmittedEvent; known?: ReadonlyMap<string, AttemptSubject> }[],
  ): Promise<EmittedEvent[]> {
    const failed = new Map<string, unknown>();
    const sent: Sent[] = [];
    await Promise.all(
      events.flatMap(({ emitted, known }) =>
        emitted.deliveryIds.map(async (deliveryId) => {
          try {
            const subject = known?.get(deliveryId);
            if (!subject) return await activities.deliverWebhook(deliveryId);
            const made = await send(subject);
            if (made) sent.push(made);
          } catch (err) {
            failed.set(deliveryId, err);
          }
        }),
      ),
    );
    let written = true;
    try {
      await finishAttempts(db, sent.map(outcomeOf));
    } catch (err) {
      // The attempts stay `interrupted`; the schedule's next attempt of each is a new one.
      written = false;
      for (const made of sent) failed.set(made.subject.delivery.id, err);
    }
    if (written) {
      for (const made of sent) {
        try {
          concluded(made);
        } catch (err) {
          failed.set(made.subject.delivery.id, err);
        }
      }
    }
    const toRetry = async (deliveryId: string): Promise<boolean> => {
      if (!failed.has(deliveryId)) return false;
      const err = failed.get(deliveryId);
      // Marked failed here; if that write fails, the schedule's attempt is refused too and marks it.
      if (err instanceof ApplicationFailure && err.type === 'DeliveryRefused')
        return activities.markDeliveryFailed(deliveryId).then(
          () => false,
          () => true,
        );
      return true;
    };
    return Promise.all(
      events.map(async ({ emitted }) => {
        const retry = await Promise.all(emitted.deliveryIds.map(toRetry));
        return { ...emitted, toRetry: emitted.deliveryIds.filter((_, i) => retry[i]) };
      }),
    );
  }

  const activities = {
    /**
     * One attempt: sign `<t>.<body>` with a fresh t, log the attempt, POST, write its outcome. Anything but a 2xx within
     * the timeout throws, and Temporal's retry policy schedules the next attempt.
     */
    async deliverWebhook(deliveryId: string): Promise<void> {
      const found = await findDeliveryWithEvent(db, deliveryId);
      if (!found) throw ApplicationFailure.nonRetryable(`no delivery ${deliveryId}`, 'DeliveryRefused');
      await attempt(found);
    },

    /**
     * The first attempt of each of an event's deliveries, made by the activity that wrote
     * the event rather than by a local activity of its own (one marker and one worker round trip
     * less per event in the run's history). Attempts run at once, each logged before its POST like
     * any other; a refused target is marked failed here; the rest that failed are left to the
     * run's retry schedule (`toRetry`). An error is never the emitting activity's: a retry of it
     * would write nothing twice, but the schedule already owns a failed delivery.
     */
    async withFirstAttempts(emitted: EmittedEvent, known?: ReadonlyMap<string, AttemptSubject>): Promise<EmittedEvent> {
      return (await firstAttempts([{ emitted, known }]))[0]!;
    },

    async markDeliveryFailed(deliveryId: string): Promise<void> {
      await setDeliveryStatus(db, deliveryId, 'failed');
      const found = await findDeliveryWithEvent(db, deliveryId);
      if (found)
        log('webhook.failed', {
          paymentId: found.delivery.paymentId,
          merchantId: found.event?.merchantId ?? null,
          deliveryId,
          eventId: found.delivery.eventId,
          eventType: found.event?.type ?? null,
          target: hostOf(found.delivery.url),
          attempts: found.delivery.attemptCount,
          lastError: found.delivery.lastError,
        });
    },
  };
  return { activities, firstAttempts };
}
