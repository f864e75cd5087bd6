import { payeeOf } from '../chains/sweeper';
import { listCreditHistory } from '../db/queries/chain-credits';
import { loadWatchedHead } from '../db/queries/chain-cursors';
import { findSession, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { findPaymentException, listPaymentExceptions, type PaymentExceptionRow } from '../db/queries/payment-exceptions';
import { listAllPayouts } from '../db/queries/payouts';
import { listProviderEvents } from '../db/queries/provider-events';
import { findTransaction, type TransactionRow } from '../db/queries/transactions';
import { listPaymentEvents } from '../db/queries/events';
import { listDeliveriesForPayment, type DeliveryWithAttempts } from '../db/queries/webhook-delivery-log';
import { notFound } from '../domain/errors';
import { isExceptionId, isRefundable } from '../domain/exceptions';
import { explorerUrlFor } from '../domain/explorers';
import { isCanonicalPaymentId } from '../domain/ids';
import { paymentTimeline, type TimelineEntry } from '../domain/payment-timeline';
import type { PaymentContext } from './context';
import { findRefund, refundException, type RefundState } from './exception-actions';
import { paymentProof, type PaymentProof } from './payment-proof';
import { recordAudit, type DashboardActor } from '../accounts/dashboard-audit';
import { paymentRefunds, refundPayment, type PaymentRefunds } from './payment-refunds';

// One payment as its merchant reads it in the dashboard (its timeline, its
// exceptions and their refunds, its webhook deliveries), its proof on chain, and the refund of an
// exception. The merchant id always comes from who is signed in: another merchant's payment, like
// one that does not exist, is 404, so the answer says nothing about other tenants.

export interface ExceptionDetail {
  exception: PaymentExceptionRow;
  refund: RefundState | null;
  /** Whether a refund may be asked for now (open, of money held at the deposit address, none under way). */
  refundable: boolean;
}

export interface PaymentDetail {
  session: CheckoutSessionRow;
  transaction: TransactionRow | null;
  exceptions: ExceptionDetail[];
  deliveries: DeliveryWithAttempts[];
  timeline: TimelineEntry[];
  /** Refunds of the completed payment itself, and what is left to refund. */
  refunds: PaymentRefunds;
  /** The payment's own money confirmed at its deposit address (credited logs only). */
  arrivedMicro: bigint;
}

async function ownSession(ctx: PaymentContext, merchantId: string, id: string): Promise<CheckoutSessionRow> {
  const session = isCanonicalPaymentId(id) ? await findSession(ctx.db, id) : undefined;
  if (!session || session.merchantId !== merchantId) throw notFound('Payment');
  return session;
}

async function exceptionDetails(ctx: PaymentContext, session: CheckoutSessionRow, rows: PaymentExceptionRow[]): Promise<ExceptionDetail[]> {
  // Only money proven at the deposit address can go back on chain (a provider-verified payment's cannot).
  const onChain = session.verification === 'chain' && session.depositAddress !== null;
  return Promise.all(
    rows.map(async (exception) => {
      const refund = await findRefund(ctx, exception.id);
      const underWay = refund !== null && refund.status !== 'failed';
      return { exception, refund, refundable: onChain && exception.status === 'open' && isRefundable(exception.kind) && !underWay };
    }),
  );
}

export function merchantPaymentDetail(ctx: PaymentContext) {
  return {
    /** Everything the payment's page shows but the chain's balance: read from Postgres alone, cheap enough to poll. */
    async detail(merchantId: string, id: string): Promise<PaymentDetail> {
      const session = await ownSession(ctx, merchantId, id);
      const [transaction, payouts, facts, credits, events, exceptions, deliveries, head] = await Promise.all([
        findTransaction(ctx.db, session.id),
        listAllPayouts(ctx.db, session.id),
        listProviderEvents(ctx.db, session.id),
        listCreditHistory(ctx.db, session.id),
        listPaymentEvents(ctx.db, session.id),
        listPaymentExceptions(ctx.db, session.id),
        listDeliveriesForPayment(ctx.db, session.id),
        // The watcher's stored head: confirmations as the payment's own run counts them, without an RPC call per poll.
        loadWatchedHead(ctx.db, session.network),
      ]);
      const timeline = paymentTimeline({
        session: {
          createdAt: session.createdAt,
          payPressedAt: session.payPressedAt,
          provider: session.provider,
          railType: session.railType,
          asset: session.destinationAsset,
          network: session.network,
        },
        providerFacts: facts,
        credits,
        events,
        // The payment's part of a settlement run's payout, and the payee of a call of the sweeper.
        payouts: payouts.map((p) => ({ ...p, amount: p.part ?? p.amount, toAddress: payeeOf(p) })),
        exceptions,
        deliveries: deliveries.map((d) => ({
          id: d.delivery.id,
          eventId: d.delivery.eventId,
          eventType: d.eventType,
          url: d.delivery.url,
          status: d.delivery.status,
          createdAt: d.delivery.createdAt,
          attempts: d.attempts.length,
        })),
        head,
        explorer: (hash) => explorerUrlFor(session.network, hash),
      });
      return {
        session,
        transaction: transaction ?? null,
        exceptions: await exceptionDetails(ctx, session, exceptions),
        deliveries,
        timeline,
        refunds: await paymentRefunds(ctx, session),
        arrivedMicro: credits.filter((c) => c.state === 'credited').reduce((sum, c) => sum + c.amountMicro, 0n),
      };
    },

    /** The chain proof (deposit address, the token's balance read now, each credited transfer). */
    async proof(merchantId: string, id: string): Promise<PaymentProof> {
      const session = await ownSession(ctx, merchantId, id);
      return paymentProof(ctx, session.id);
    },

    /**
     * An exception of the merchant's own payment sent back on chain: the operator's refund path
     * itself (the exception's workflow, once, `payment.refunded`, ledger rows). Without an address,
     * the one the customer left on the checkout page. Audited once the run has planned the refund:
     * the change is the workflow's, not a transaction of this call's, so the line follows it, and
     * only when no refund was under way before (asking again changes nothing; two asks at the same
     * moment may both find none and write a line each).
     */
    async refundException(actor: DashboardActor, paymentId: string, exceptionId: string, address: string | undefined) {
      const session = await ownSession(ctx, actor.merchantId, paymentId);
      const exception = isExceptionId(exceptionId) ? await findPaymentException(ctx.db, exceptionId) : undefined;
      if (!exception || exception.paymentId !== session.id) throw notFound('Exception');
      const before = await findRefund(ctx, exception.id);
      const refunded = await refundException(ctx, exception.id, address);
      if (!before || before.status === 'failed') {
        await recordAudit(ctx.db, actor, 'exception_refund.requested', exception.id, {
          paymentId: session.id,
          kind: exception.kind,
          amount: refunded.refund.amount,
          address: refunded.refund.address,
        });
      }
      return refunded;
    },

    /**
     * The merchant's own completed payment refunded, wholly or partly: the
     * operators' use case itself (refundPayment), scoped to the merchant (another's payment is 404).
     */
    async refundPayment(actor: DashboardActor, paymentId: string, input: { amount: string; address?: string; requestKey?: string }) {
      const session = await ownSession(ctx, actor.merchantId, paymentId);
      return refundPayment(ctx, {
        ...input,
        paymentId: session.id,
        merchantId: actor.merchantId,
        requestedBy: `dashboard:${actor.userId}`,
        actor,
      });
    },
  };
}
