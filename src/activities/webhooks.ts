import { payeeOf } from '../chains/sweeper';
import { ApplicationFailure } from '@temporalio/activity';
import type { WebhookSettings } from '../config';
import type { Database } from '../db/client';
import { silentBusinessLog, type BusinessLog } from '../logging';
import {
  findSession,
  findSessionForEvent,
  findSessionsForEvent,
  type CheckoutSessionRow,
  type EnabledEndpoint,
  type SessionEventContext,
} from '../db/queries/checkout-sessions';
import { queueCustomerMail } from '../db/queries/customer-mails';
import { findPaymentException } from '../db/queries/payment-exceptions';
import { listRefundPayouts } from '../db/queries/payouts';
import { findPaymentRefund, listPaymentRefunds } from '../db/queries/payment-refunds';
import { findTransaction } from '../db/queries/transactions';
import { paymentRefundedEventBody } from '../domain/payment-refund';
import { findSite } from '../db/queries/sites';
import {
  findDeliveryWithEvent,
  insertDeliveriesBegun,
  insertDeliveriesOnce,
  insertEventOnce,
  insertEventWithDeliveries,
  listEnabledEndpoints,
  merchantWebhookSecret,
  beginAttempt,
  finishAttempt,
  finishAttempts,
  setDeliveryStatus,
  type DeliveryRow,
  type EndpointRow,
  type EventRow,
} from '../db/queries/webhooks';
import { issueWebhookSecret } from '../domain/credentials';
import { isFiatCurrency } from '../domain/currencies';
import { newCustomerMailId, newDeliveryId, newEventId } from '../domain/ids';
import { formatCrypto, formatFiat } from '../domain/money';
import type { PaymentStatus } from '../domain/payment-status';
import { decryptSecret, encryptSecret } from '../domain/secretbox';
import { deliverySignatureHeaders } from '../domain/signatures';
import { paymentLabels } from '../domain/payment-labels';
import { paymentEventBody } from '../domain/webhook-event';
import { endpointWants } from '../domain/webhook-event-types';
import { explorerUrlFor } from '../domain/explorers';
import { exceptionEventBody, exceptionView, refundEventBody } from '../domain/exceptions';
import { postWebhook } from '../webhooks/post';

/** A delivery row as written: one per distinct URL an event goes to. */
type NewDelivery = Pick<DeliveryRow, 'id' | 'eventId' | 'paymentId' | 'url' | 'secretSource' | 'secretRef'>;

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

export interface EmittedEvent {
  eventId: string;
  deliveryIds: string[];
  /** The retry schedule in force, carried into the delivery workflows. */
  retry: { baseSeconds: number; maxIntervalSeconds: number; windowHours: number };
  /**
   * Set when the emitting activity made each delivery's first attempt itself (withFirstAttempts):
   * the deliveries whose attempt failed and that the schedule retries. Absent: no attempt made yet.
   */
  toRetry?: string[];
}

export const USER_AGENT = 'svc-webhooks/1.0';

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

/** What an attempt reads before it signs: the delivery, its event, and the endpoint whose secret signs it (if one does). */
interface AttemptSubject {
  delivery: DeliveryRow;
  event: EventRow | null;
  endpoint: Pick<EndpointRow, 'secretEncrypted'> | null;
  /** The merchant's default secret (sealed) as the event's write read it: not read again for a `merchant` delivery. */
  merchantSecret?: string | null;
  /** The attempt its insert began (insertDeliveriesBegun): not begun again. */
  attemptId?: number | undefined;
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
export function createWebhookEvents({
  db,
  secretsKey,
  allowPrivateUrls,
  webhooks,
  now,
  log = silentBusinessLog,
  post = postWebhook,
}: WebhookActivityDeps) {
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

  const emittedOf = (deliveries: DeliveryRow[], eventId: string): EmittedEvent => ({
    eventId,
    deliveryIds: deliveries.map((d) => d.id),
    retry: retrySchedule(),
  });

  /**
   * Every enabled endpoint that chose this event type (or made no choice), plus the session's webhookUrl (merchant's default secret),
   * plus the site endpoint for plugin sessions; one delivery per distinct URL. A plugin knows only its
   * site's webhook_secret, so that secret signs the site's callback_url (winning a tie) and any
   * per-order callback URL the plugin sent; otherwise an endpoint's own secret wins.
   */
  async function deliveriesFor(session: CheckoutSessionRow, eventId: string, type: string): Promise<DeliveryRow[]> {
    return (await deliveriesWithEndpoints(session, await listEnabledEndpoints(db, session.merchantId), eventId, type)).deliveries;
  }

  /**
   * The deliveries an event of `type` gets (one per distinct URL, as deliveriesFor says), as rows to
   * insert, and which of them have their first attempt begun with their insert: with `merchantSecret`
   * given by the emitter that posts at once (emitPaymentEventOf, the merchant's default secret as its
   * read found it), each whose secret is then known (an endpoint's, or this one when set).
   */
  async function deliveryRows(
    session: CheckoutSessionRow,
    /** The merchant's enabled endpoints, oldest first. */
    endpoints: EnabledEndpoint[],
    eventId: string,
    type: string,
    merchantSecret?: string | null,
  ): Promise<{ rows: NewDelivery[]; begin: Set<string> }> {
    const targets = new Map<string, { secretSource: DeliveryRow['secretSource']; secretRef: string }>();
    const site = session.siteId ? await findSite(db, session.siteId) : undefined;
    if (site) targets.set(site.callbackUrl, { secretSource: 'site', secretRef: site.id });
    for (const endpoint of endpoints) {
      if (!endpointWants(endpoint.eventTypes, type)) continue;
      if (!targets.has(endpoint.url)) targets.set(endpoint.url, { secretSource: 'endpoint', secretRef: endpoint.id });
    }
    // A plugin session whose site was disconnected: its per-order URL had only the site's secret.
    const siteGone = session.siteId !== null && !site;
    if (session.webhookUrl && !targets.has(session.webhookUrl) && !siteGone) {
      targets.set(
        session.webhookUrl,
        site ? { secretSource: 'site', secretRef: site.id } : { secretSource: 'merchant', secretRef: session.merchantId },
      );
    }
    const rows = [...targets].map(([url, t]) => ({ id: newDeliveryId(), eventId, paymentId: session.id, url, ...t }));
    const secretKnown = (t: { secretSource: DeliveryRow['secretSource'] }) =>
      t.secretSource === 'endpoint' || (t.secretSource === 'merchant' && !!merchantSecret);
    return { rows, begin: new Set(merchantSecret === undefined ? [] : rows.filter(secretKnown).map((r) => r.id)) };
  }

  /**
   * Of `deliveries`, each that this call wrote (its id among `rows`), with the endpoint row whose
   * secret signs it (null: another secret signs it). A delivery written before (a retried activity)
   * is left out: its attempt reads it as it stands.
   */
  function freshDeliveries(rows: readonly NewDelivery[], deliveries: readonly DeliveryRow[], endpoints: readonly EnabledEndpoint[]) {
    const written = new Set(rows.map((r) => r.id));
    const fresh = new Map<string, EnabledEndpoint | null>();
    for (const d of deliveries) {
      if (!written.has(d.id)) continue;
      if (d.secretSource !== 'endpoint') fresh.set(d.id, null);
      else {
        const endpoint = endpoints.find((e) => e.id === d.secretRef);
        if (endpoint) fresh.set(d.id, endpoint);
      }
    }
    return fresh;
  }

  /** deliveryRows written (insertDeliveriesBegun), with what freshDeliveries says of them and the attempts begun. */
  async function deliveriesWithEndpoints(
    session: CheckoutSessionRow,
    endpoints: EnabledEndpoint[],
    eventId: string,
    type: string,
    merchantSecret?: string | null,
  ): Promise<{ deliveries: DeliveryRow[]; fresh: Map<string, EnabledEndpoint | null>; begun: Map<string, number> }> {
    const { rows, begin } = await deliveryRows(session, endpoints, eventId, type, merchantSecret);
    const { deliveries, attempts: begun } =
      begin.size === 0
        ? { deliveries: await insertDeliveriesOnce(db, rows), attempts: new Map<string, number>() }
        : await insertDeliveriesBegun(db, rows, begin);
    return { deliveries, fresh: freshDeliveries(rows, deliveries, endpoints), begun };
  }

  const retrySchedule = () => ({
    baseSeconds: webhooks.retryBaseSeconds,
    maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
    windowHours: webhooks.retryWindowHours,
  });

  /**
   * The event of a status transition (emitPaymentEvent), and what its write read and wrote: the
   * session (after the transition) and, for each delivery it wrote, what its first attempt needs.
   * The session, its transaction row and its merchant's endpoints are read in one statement. With
   * `postsAtOnce` (the caller makes the first attempts: withFirstAttempts), those attempts are begun
   * with the deliveries' insert; without, nothing is begun (the deliveries wait for their own attempts).
   */
  async function emitPaymentEventOf(
    paymentId: string,
    status: PaymentStatus,
    type: 'payment.settled' | null | undefined,
    postsAtOnce: boolean,
    known?: SessionEventContext,
  ): Promise<{ emitted: EmittedEvent; session: CheckoutSessionRow; attempts: Map<string, AttemptSubject> }> {
    const found = known ?? (await findSessionForEvent(db, paymentId));
    if (!found) throw ApplicationFailure.nonRetryable(`no checkout session ${paymentId}`, 'SessionMissing');
    const { session } = found;
    if (!isFiatCurrency(session.currency)) throw ApplicationFailure.nonRetryable('bad currency', 'SessionMissing');
    // payment.settled: the completed payment's body, sent when its payout is confirmed.
    const tx = status === 'completed' ? (found.transaction ?? undefined) : undefined;
    const eventId = newEventId();
    const body = paymentEventBody({
      eventId,
      ...(type ? { event: type } : {}),
      status,
      merchantId: session.merchantId,
      paymentId,
      ...paymentLabels(session),
      providerPaymentId: tx?.providerPaymentId ?? session.providerPaymentId,
      amount: formatFiat(session.amountMinor, session.currency),
      currency: session.currency,
      destinationAsset: session.destinationAsset,
      network: session.network,
      walletAddress: session.walletAddress,
      orderId: session.orderId ?? session.merchantOrderId,
      createdAt: now(),
      ...(tx && tx.grossMicro !== null
        ? {
            settlement: {
              grossAmount: formatCrypto(tx.grossMicro),
              merchantSettlementAmount: formatCrypto(tx.merchantSettlementMicro!),
              platformCommissionAmount: formatCrypto(tx.platformCommissionMicro!),
              transactionHash: tx.transactionHash,
              explorerUrl: tx.explorerUrl,
            },
          }
        : {}),
    });
    const eventRow = {
      id: eventId,
      paymentId,
      merchantId: session.merchantId,
      type: type ?? `payment.${status}`,
      body: JSON.stringify(body),
    };
    const merchantSecret = postsAtOnce ? found.merchantSecret : undefined;
    // The event and its deliveries in one statement; a retried activity finds the first call's (two).
    const planned = await deliveryRows(session, found.endpoints, eventId, eventRow.type, merchantSecret);
    const together = await insertEventWithDeliveries(db, eventRow, planned.rows, planned.begin);
    const event = together?.event ?? (await insertEventOnce(db, eventRow));
    const { deliveries, fresh, begun } = together
      ? { ...together, fresh: freshDeliveries(planned.rows, together.deliveries, found.endpoints), begun: together.attempts }
      : await deliveriesWithEndpoints(session, found.endpoints, event.id, event.type, merchantSecret);
    // The customer's receipt, when they asked for one on the page; recorded once whatever
    // the retries, and sent by the worker's mail sender (customer-mails.ts), never from this run.
    // Only asked for when the session just read has an address (the common case has none: no statement).
    if (status === 'completed' && !type && session.receiptEmail) {
      await queueCustomerMail(db, { id: newCustomerMailId(), paymentId, kind: 'receipt' });
    }
    // Logged by the call that stored the event: a retry finds the first one and says nothing.
    if (event.id === eventId) {
      log(type ?? `payment.${status}`, {
        paymentId,
        merchantId: session.merchantId,
        workflowId: paymentId,
        status,
        eventId,
        ...paymentLabels(session),
        amount: formatFiat(session.amountMinor, session.currency),
        currency: session.currency,
        destinationAsset: session.destinationAsset,
        network: session.network,
        orderId: session.orderId ?? session.merchantOrderId,
        ...(tx && tx.grossMicro !== null
          ? {
              grossAmount: formatCrypto(tx.grossMicro),
              merchantSettlementAmount: formatCrypto(tx.merchantSettlementMicro!),
              platformCommissionAmount: formatCrypto(tx.platformCommissionMicro!),
              transactionHash: tx.transactionHash,
            }
          : {}),
        deliveries: deliveries.length,
      });
    }
    const attempts = new Map<string, AttemptSubject>();
    for (const delivery of deliveries) {
      const endpoint = fresh.get(delivery.id);
      if (endpoint !== undefined) {
        attempts.set(delivery.id, { delivery, event, endpoint, merchantSecret: found.merchantSecret, attemptId: begun.get(delivery.id) });
      }
    }
    return { emitted: emittedOf(deliveries, event.id), session, attempts };
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
     * The event of a status transition, stored once per (payment, type), with one
     * delivery per distinct target URL. Idempotent: a retry returns the same event and deliveries.
     */
    async emitPaymentEvent(paymentId: string, status: PaymentStatus, type?: 'payment.settled' | null): Promise<EmittedEvent> {
      return (await emitPaymentEventOf(paymentId, status, type, false)).emitted;
    },

    /**
     * The merchant's `payment.exception` event, one per exception (its id is the
     * event's subject), delivered like every other event; `payment.refunded` once its refund is
     * confirmed, with the transfer. Idempotent like emitPaymentEvent.
     */
    async emitExceptionEvent(exceptionId: string, kind?: 'payment.exception' | 'payment.refunded' | null): Promise<EmittedEvent> {
      const type = kind ?? 'payment.exception';
      const exception = await findPaymentException(db, exceptionId);
      if (!exception) throw ApplicationFailure.nonRetryable(`no exception ${exceptionId}`, 'ExceptionMissing');
      const session = await findSession(db, exception.paymentId);
      // Simple-API orders have no merchant and no v1 webhooks: their exceptions are for operators only.
      if (!session) return { eventId: '', deliveryIds: [], retry: retrySchedule() };
      const eventId = newEventId();
      const input = {
        eventId,
        merchantId: session.merchantId,
        paymentId: session.id,
        orderId: session.orderId ?? session.merchantOrderId,
        destinationAsset: session.destinationAsset,
        network: session.network,
        exception: exceptionView(exception),
        createdAt: now(),
      };
      let body = exceptionEventBody(input);
      if (type === 'payment.refunded') {
        const sent = (await listRefundPayouts(db, exceptionId)).find((p) => p.kind === 'refund' && p.status === 'confirmed');
        if (!sent?.txHash) throw ApplicationFailure.nonRetryable(`exception ${exceptionId} has no confirmed refund`, 'RefundMissing');
        const refund = {
          // The payee: the refund is a call of the sweeper, whose `forward` names where the money went.
          address: payeeOf(sent),
          amount: formatCrypto(BigInt(sent.amount)),
          transactionHash: sent.txHash,
          explorerUrl: explorerUrlFor(sent.network, sent.txHash),
        };
        body = refundEventBody({ ...input, refund });
        // The customer's refund notice, as the receipt above.
        await queueCustomerMail(db, { id: newCustomerMailId(), paymentId: session.id, kind: 'refund', subject: exception.id });
      }
      const event = await insertEventOnce(db, {
        id: eventId,
        paymentId: session.id,
        merchantId: session.merchantId,
        type,
        subject: exception.id,
        body: JSON.stringify(body),
      });
      const deliveries = await deliveriesFor(session, event.id, event.type);
      if (event.id === eventId) {
        log(type === 'payment.refunded' ? 'exception.refunded' : 'exception.recorded', {
          paymentId: session.id,
          merchantId: session.merchantId,
          workflowId: exception.id,
          exceptionId: exception.id,
          kind: exception.kind,
          amount: formatCrypto(exception.amountMicro),
          asset: exception.asset ?? session.destinationAsset,
          network: session.network,
          eventId,
          deliveries: deliveries.length,
        });
      }
      return emittedOf(deliveries, event.id);
    },

    /**
     * `payment.refunded` for one refund of a completed payment, once its transfer
     * is confirmed; the refund's id is the event's subject, so two partial refunds are two events.
     * Idempotent like emitPaymentEvent.
     */
    async emitRefundEvent(refundId: string): Promise<EmittedEvent> {
      const refund = await findPaymentRefund(db, refundId);
      if (!refund) throw ApplicationFailure.nonRetryable(`no refund ${refundId}`, 'RefundMissing');
      if (refund.status !== 'refunded' || !refund.txHash)
        throw ApplicationFailure.nonRetryable(`refund ${refundId} is not confirmed`, 'RefundMissing');
      const [session, tx, refunds] = await Promise.all([
        findSession(db, refund.paymentId),
        findTransaction(db, refund.paymentId),
        listPaymentRefunds(db, refund.paymentId),
      ]);
      if (!session) throw ApplicationFailure.nonRetryable(`no payment ${refund.paymentId}`, 'RefundMissing');
      const eventId = newEventId();
      // What the payment has had refunded in all, up to and with this refund (confirmed ones).
      const refundedMicro = refunds
        .filter((r) => r.status === 'refunded' && r.refundedAt && r.refundedAt <= refund.refundedAt!)
        .reduce((sum, r) => sum + r.amountMicro, 0n);
      const body = paymentRefundedEventBody({
        eventId,
        merchantId: session.merchantId,
        paymentId: session.id,
        orderId: session.orderId ?? session.merchantOrderId,
        destinationAsset: session.destinationAsset,
        network: session.network,
        refundId: refund.id,
        grossMicro: tx?.grossMicro ?? 0n,
        refundedMicro,
        refund: {
          address: refund.address,
          amountMicro: refund.amountMicro,
          transactionHash: refund.txHash,
          explorerUrl: explorerUrlFor(refund.network, refund.txHash),
        },
        createdAt: now(),
      });
      // The customer's refund notice, as an exception's refund's (subject: the refund's id).
      await queueCustomerMail(db, { id: newCustomerMailId(), paymentId: session.id, kind: 'refund', subject: refund.id });
      const event = await insertEventOnce(db, {
        id: eventId,
        paymentId: session.id,
        merchantId: session.merchantId,
        type: 'payment.refunded',
        subject: refund.id,
        body: JSON.stringify(body),
      });
      const deliveries = await deliveriesFor(session, event.id, event.type);
      if (event.id === eventId) {
        log('payment.refunded', {
          paymentId: session.id,
          merchantId: session.merchantId,
          workflowId: refund.id,
          refundId: refund.id,
          amount: formatCrypto(refund.amountMicro),
          asset: refund.asset,
          network: refund.network,
          transactionHash: refund.txHash,
          eventId,
          deliveries: deliveries.length,
        });
      }
      return emittedOf(deliveries, event.id);
    },

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
      return firstAttempts(made.map(({ emitted, attempts }) => ({ emitted, known: attempts })));
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
export type WebhookEvents = ReturnType<typeof createWebhookEvents>;
