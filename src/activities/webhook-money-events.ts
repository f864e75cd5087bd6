import { ApplicationFailure } from '@temporalio/activity';
import { payeeOf } from '../chains/sweeper';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import { findSession } from '../db/queries/checkout-sessions';
import { findPaymentException } from '../db/queries/payment-exceptions';
import { listRefundPayouts } from '../db/queries/payouts';
import { findPaymentRefund, listPaymentRefunds } from '../db/queries/payment-refunds';
import { findTransaction } from '../db/queries/transactions';
import { insertEventOnce } from '../db/queries/events';
import { exceptionEventBody, exceptionView, refundEventBody } from '../domain/exceptions';
import { explorerUrlFor } from '../domain/explorers';
import { newEventId } from '../domain/ids';
import { formatCrypto } from '../domain/money';
import { paymentRefundedEventBody } from '../domain/payment-refund';
import { queueRefundNotice } from './customer-mail-queue';
import type { EmittedEvent, WebhookDeliveries } from './webhook-deliveries';

export interface MoneyEventDeps {
  db: Database;
  now: () => Date;
  log: BusinessLog;
  deliveries: WebhookDeliveries;
}

/**
 * The events of a payment's money after its own run: an exception (`payment.exception`, and
 * `payment.refunded` once its refund is confirmed) and a completed payment's refund (`payment.refunded`).
 */
export function createMoneyEvents({ db, now, log, deliveries: { deliveriesFor, emittedOf, retrySchedule } }: MoneyEventDeps) {
  return {
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
        // The customer's refund notice (subject: the exception's id).
        await queueRefundNotice(db, session.id, exception.id);
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
      await queueRefundNotice(db, session.id, refund.id);
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
  };
}
