import { ApplicationFailure } from '@temporalio/activity';
import type { WebhookSettings } from '../config';
import type { Database } from '../db/client';
import { silentBusinessLog, type BusinessLog } from '../logging';
import { findSession, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { queueCustomerMail } from '../db/queries/customer-mails';
import { findPaymentException } from '../db/queries/payment-exceptions';
import { listRefundPayouts } from '../db/queries/payouts';
import { findPaymentRefund, listPaymentRefunds } from '../db/queries/payment-refunds';
import { paymentRefundedEventBody } from '../domain/payment-refund';
import { findSite } from '../db/queries/sites';
import { findTransaction } from '../db/queries/transactions';
import {
  findDeliveryWithEvent,
  insertDeliveriesOnce,
  insertEventOnce,
  listEnabledEndpoints,
  merchantWebhookSecret,
  beginAttempt,
  finishAttempt,
  setDeliveryStatus,
  type DeliveryRow,
  type EndpointRow,
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

export interface WebhookActivityDeps {
  db: Database;
  secretsKey: Buffer;
  allowPrivateUrls: boolean;
  webhooks: WebhookSettings;
  now: () => Date;
  log?: BusinessLog;
}

export interface EmittedEvent {
  eventId: string;
  deliveryIds: string[];
  /** The retry schedule in force, carried into the delivery workflows (decisions §8). */
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

/** Webhook side effects: the event row, its deliveries, and one signed POST per attempt. */
export function createWebhookActivities({ db, secretsKey, allowPrivateUrls, webhooks, now, log = silentBusinessLog }: WebhookActivityDeps) {
  /** `endpoint` is the delivery's endpoint as its attempt read it (null when deleted, or when another secret signs). */
  async function secretFor(delivery: DeliveryRow, endpoint: EndpointRow | null): Promise<string> {
    if (delivery.secretSource === 'endpoint') {
      if (!endpoint) throw ApplicationFailure.nonRetryable(`endpoint ${delivery.secretRef} is gone`, 'DeliveryRefused');
      return decryptSecret(secretsKey, endpoint.secretEncrypted);
    }
    if (delivery.secretSource === 'site') {
      const site = await findSite(db, delivery.secretRef);
      if (!site) throw ApplicationFailure.nonRetryable(`site ${delivery.secretRef} is gone`, 'DeliveryRefused');
      return decryptSecret(secretsKey, site.webhookSecretEncrypted);
    }
    const sealed = await merchantWebhookSecret(db, delivery.secretRef, () => encryptSecret(secretsKey, issueWebhookSecret()));
    if (!sealed) throw ApplicationFailure.nonRetryable(`merchant ${delivery.secretRef} has no webhook secret`, 'DeliveryRefused');
    return decryptSecret(secretsKey, sealed);
  }

  const emittedOf = (deliveries: DeliveryRow[], eventId: string): EmittedEvent => ({
    eventId,
    deliveryIds: deliveries.map((d) => d.id),
    retry: retrySchedule(),
  });

  /**
   * Decisions §8: every enabled endpoint that chose this event type (or made no choice), plus the session's webhookUrl (merchant's default secret),
   * plus the site endpoint for plugin sessions; one delivery per distinct URL. A plugin knows only its
   * site's webhook_secret, so that secret signs the site's callback_url (winning a tie) and any
   * per-order callback URL the plugin sent; otherwise an endpoint's own secret wins.
   */
  async function deliveriesFor(session: CheckoutSessionRow, eventId: string, type: string): Promise<DeliveryRow[]> {
    const targets = new Map<string, { secretSource: DeliveryRow['secretSource']; secretRef: string }>();
    const site = session.siteId ? await findSite(db, session.siteId) : undefined;
    if (site) targets.set(site.callbackUrl, { secretSource: 'site', secretRef: site.id });
    for (const endpoint of await listEnabledEndpoints(db, session.merchantId)) {
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
    return insertDeliveriesOnce(
      db,
      [...targets].map(([url, t]) => ({ id: newDeliveryId(), eventId, paymentId: session.id, url, ...t })),
    );
  }

  const retrySchedule = () => ({
    baseSeconds: webhooks.retryBaseSeconds,
    maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
    windowHours: webhooks.retryWindowHours,
  });

  const activities = {
    /**
     * The event of a status transition (decisions §6), stored once per (payment, type), with one
     * delivery per distinct target URL. Idempotent: a retry returns the same event and deliveries.
     */
    async emitPaymentEvent(paymentId: string, status: PaymentStatus, type?: 'payment.settled' | null): Promise<EmittedEvent> {
      const session = await findSession(db, paymentId);
      if (!session) throw ApplicationFailure.nonRetryable(`no checkout session ${paymentId}`, 'SessionMissing');
      if (!isFiatCurrency(session.currency)) throw ApplicationFailure.nonRetryable('bad currency', 'SessionMissing');
      // payment.settled (decisions §11): the completed payment's body, sent when its payout is confirmed.
      const tx = status === 'completed' ? await findTransaction(db, paymentId) : undefined;
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
      const event = await insertEventOnce(db, {
        id: eventId,
        paymentId,
        merchantId: session.merchantId,
        type: type ?? `payment.${status}`,
        body: JSON.stringify(body),
      });
      const deliveries = await deliveriesFor(session, event.id, event.type);
      // Issue 30: the customer's receipt, when they asked for one on the page; recorded once whatever
      // the retries, and sent by the worker's mail sender (customer-mails.ts), never from this run.
      if (status === 'completed' && !type) await queueCustomerMail(db, { id: newCustomerMailId(), paymentId, kind: 'receipt' });
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
      return emittedOf(deliveries, event.id);
    },

    /**
     * Decisions §12: the merchant's `payment.exception` event, one per exception (its id is the
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
          address: sent.toAddress,
          amount: formatCrypto(BigInt(sent.amount)),
          transactionHash: sent.txHash,
          explorerUrl: explorerUrlFor(sent.network, sent.txHash),
        };
        body = refundEventBody({ ...input, refund });
        // Issue 30: the customer's refund notice, as the receipt above.
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
     * Issue 29 item 3: `payment.refunded` for one refund of a completed payment, once its transfer
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
      const { delivery, event, endpoint } = found;
      if (delivery.status === 'succeeded') return;
      if (!event) throw ApplicationFailure.nonRetryable(`no event ${delivery.eventId}`, 'DeliveryRefused');
      const secret = await secretFor(delivery, endpoint);
      const t = Math.floor(now().getTime() / 1000);
      const attemptId = await beginAttempt(db, deliveryId);
      const result = await postWebhook({
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
      const error = succeeded ? null : (result.error ?? `HTTP ${result.statusCode}`);
      await finishAttempt(db, { attemptId, deliveryId, statusCode: result.statusCode, durationMs: result.durationMs, error, succeeded });
      // The target's host only: a merchant's URL may carry a token in its path or query.
      log(succeeded ? 'webhook.delivered' : 'webhook.attempt_failed', {
        paymentId: delivery.paymentId,
        merchantId: event.merchantId,
        deliveryId,
        eventId: event.id,
        eventType: event.type,
        target: hostOf(delivery.url),
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        ...(error ? { error } : {}),
      });
      if (succeeded) return;
      if (result.refused) throw ApplicationFailure.nonRetryable(error, 'DeliveryRefused');
      throw ApplicationFailure.retryable(error, 'DeliveryFailed');
    },

    /**
     * Issue 32: the first attempt of each of an event's deliveries, made by the activity that wrote
     * the event rather than by a local activity of its own (one marker and one worker round trip
     * less per event in the run's history). Attempts run at once, each logged before its POST like
     * any other; a refused target is marked failed here; the rest that failed are left to the
     * run's retry schedule (`toRetry`). An error is never the emitting activity's: a retry of it
     * would write nothing twice, but the schedule already owns a failed delivery.
     */
    async withFirstAttempts(emitted: EmittedEvent): Promise<EmittedEvent> {
      const outcomes = await Promise.all(
        emitted.deliveryIds.map(async (deliveryId) => {
          try {
            await activities.deliverWebhook(deliveryId);
            return null;
          } catch (err) {
            if (err instanceof ApplicationFailure && err.type === 'DeliveryRefused') {
              // Marked failed here; if that write fails, the schedule's attempt is refused too and marks it.
              return (await activities.markDeliveryFailed(deliveryId).then(
                () => true,
                () => false,
              ))
                ? null
                : deliveryId;
            }
            return deliveryId;
          }
        }),
      );
      return { ...emitted, toRetry: outcomes.filter((id): id is string => id !== null) };
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
  return activities;
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
