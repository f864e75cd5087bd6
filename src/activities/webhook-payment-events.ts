import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import { findSessionForEvent, type SessionEventContext } from '../db/queries/checkout-session-events';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { insertEventOnce } from '../db/queries/events';
import { insertEventWithDeliveries } from '../db/queries/webhooks';
import { isFiatCurrency } from '../domain/currencies';
import { newEventId } from '../domain/ids';
import { formatCrypto, formatFiat } from '../domain/money';
import type { PaymentStatus } from '../domain/payment-status';
import { paymentLabels } from '../domain/payment-labels';
import { paymentEventBody } from '../domain/webhook-event';
import { queueReceipt } from './customer-mail-queue';
import type { AttemptSubject } from './webhook-attempts';
import type { EmittedEvent, WebhookDeliveries } from './webhook-deliveries';

export interface PaymentEventDeps {
  db: Database;
  now: () => Date;
  log: BusinessLog;
  deliveries: WebhookDeliveries;
}

/** A checkout session's events: each status transition's, and `payment.settled` when its payout is confirmed. */
export function createPaymentEvents({ db, now, log, deliveries }: PaymentEventDeps) {
  const { deliveryRows, freshDeliveries, deliveriesWithEndpoints, emittedOf } = deliveries;

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
    // The customer's receipt of the completion (not of its settlement), when they asked for one.
    if (status === 'completed' && !type) await queueReceipt(db, session);
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

  return emitPaymentEventOf;
}
