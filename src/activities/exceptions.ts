import type { ChainSettings } from '../config';
import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import { ACCEPTABLE_FROM, completeAcceptedSession } from '../db/queries/accepted-sessions';
import { findSession, lockSession } from '../db/queries/checkout-sessions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { findPaymentException, lockPaymentException, resolvePaymentException } from '../db/queries/payment-exceptions';
import { failUnsentPayouts, listRefundPayouts } from '../db/queries/payouts';
import { isAcceptable, type ExceptionStatus } from '../domain/exceptions';
import { exceptionAccepted, ledgerAccount } from '../domain/ledger';
import { accountBalance } from '../db/queries/ledger';
import { recordLinkPayment } from './payment-links';
import { completionPostings, insertCompletedTransaction } from './session-completion';
import type { AcceptReport } from '../domain/payment-exception';

// The exception workflow's side effects, each idempotent.

export const NOT_ACCEPTABLE = 'NotAcceptable';

export function createExceptionActivities({
  db,
  now,
  chains,
}: {
  db: Database;
  now: () => Date;
  chains: Pick<ChainSettings, 'settlement'>;
}) {
  return {
    /** The exception's status, and its payment's merchant and status (the run's search attributes). */
    async exceptionStatus(
      exceptionId: string,
    ): Promise<{ status: ExceptionStatus; merchantId: string | null; paymentStatus?: string | null }> {
      const exception = await findPaymentException(db, exceptionId);
      if (!exception) throw ApplicationFailure.nonRetryable(`no exception ${exceptionId}`, 'ExceptionMissing');
      if (exception.paymentKind === 'checkout_session') {
        const session = await findSession(db, exception.paymentId);
        return { status: exception.status, merchantId: session?.merchantId ?? null, paymentStatus: session?.status ?? null };
      }
      const order = await findSimpleOrder(db, exception.paymentId);
      return { status: exception.status, merchantId: null, paymentStatus: order?.status ?? null };
    },

    /**
     * A late or underpaid payment accepted as the payment: gross = the money that arrived, the
     * commission split, the transaction row, the session completed, its payment link paid and the
     * exception accepted, in one database transaction. A retry finds the exception accepted and
     * changes nothing. A link is paid once: when another session of the link paid
     * it, this money is a second payment, refunded, never accepted.
     */
    async acceptException(exceptionId: string): Promise<AcceptReport> {
      return db.transaction(async (tx) => {
        const exception = await lockPaymentException(tx, exceptionId);
        if (!exception) throw ApplicationFailure.nonRetryable(`no exception ${exceptionId}`, 'ExceptionMissing');
        const session = exception.paymentKind === 'checkout_session' ? await lockSession(tx, exception.paymentId) : undefined;
        if (!session) throw ApplicationFailure.nonRetryable('only a checkout session’s exception can be accepted', NOT_ACCEPTABLE);
        // The link's row is locked by this write (or read, when this session paid it already); another
        // session's completion waits for it, so the two cannot both pay the link.
        const link =
          session.paymentLinkId && exception.status !== 'refunded' ? await recordLinkPayment(tx, session.paymentLinkId, session.id) : null;
        const paidLinkId = link === 'paid' ? session.paymentLinkId : null;
        if (exception.status === 'accepted')
          return {
            paymentId: session.id,
            paymentStatus: session.status,
            completedNow: false,
            paidLinkId,
          };
        if (link === 'duplicate') {
          throw ApplicationFailure.nonRetryable(
            `payment link ${session.paymentLinkId} was paid by another of its sessions: this money is a second payment for it, to be refunded`,
            NOT_ACCEPTABLE,
          );
        }
        // A refund planned under this same lock owns the money: it is on its way back to the customer
        // (unless its transfer failed: the money is still at the deposit address).
        const refund = (await listRefundPayouts(tx, exceptionId)).find((p) => p.kind === 'refund');
        if (refund && refund.status !== 'failed')
          throw ApplicationFailure.nonRetryable('a refund of this money is under way', NOT_ACCEPTABLE);
        if (
          exception.status !== 'open' ||
          !isAcceptable(exception.kind) ||
          !(ACCEPTABLE_FROM as readonly string[]).includes(session.status)
        ) {
          throw ApplicationFailure.nonRetryable(
            `a ${exception.status} ${exception.kind} exception of a ${session.status} session cannot be accepted`,
            NOT_ACCEPTABLE,
          );
        }
        const refs = (exception.references ?? {}) as Record<string, unknown>;
        const hash = typeof refs.transactionHash === 'string' ? refs.transactionHash : null;
        // A chain-verified payment is never paid without its money on chain. The
        // accepted amount must be what the ledger holds for this exception, posted when its logs
        // were confirmed at the deposit address; it then joins the merchant's balance as any completion.
        const onChain = session.verification === 'chain' && session.depositAddress !== null;
        const held = () =>
          accountBalance(tx, {
            account: ledgerAccount.exceptionHeld(exception.id),
            asset: session.destinationAsset,
            network: session.network,
          });
        if (onChain && -(await held()) < exception.amountMicro) {
          throw ApplicationFailure.nonRetryable(`the ${exception.kind} money of ${session.id} is not credited on chain`, NOT_ACCEPTABLE);
        }
        const completedAt = now();
        const proof = {
          grossMicro: exception.amountMicro,
          providerPaymentId: session.providerPaymentId,
          // The proof is the operator's acceptance of this exception.
          providerEventId: `exception:${exception.id}`,
          // On chain, the transaction's hash is the merchant's payout's, set when a settlement run confirms it.
          transactionHash: onChain ? null : hash,
          depositTransactionHash: hash,
          explorerUrl: null,
          completedAt,
          // On chain: the exception's money released to the payment, then the completion's own postings.
          postings: onChain
            ? [
                exceptionAccepted({
                  exceptionId: exception.id,
                  paymentId: session.id,
                  depositAddress: session.depositAddress!,
                  asset: session.destinationAsset,
                  network: session.network,
                  amountMicro: exception.amountMicro,
                }),
                ...completionPostings(
                  session,
                  { grossMicro: exception.amountMicro, depositAddress: session.depositAddress!, txHash: hash },
                  chains.settlement,
                ),
              ]
            : [],
        };
        await insertCompletedTransaction(tx, session, proof);
        await completeAcceptedSession(tx, session.id, completedAt);
        await resolvePaymentException(tx, exception.id, 'accepted');
        return { paymentId: session.id, paymentStatus: 'completed', completedNow: true, paidLinkId };
      });
    },

    /**
     * A refund whose sending stopped for a reason a retry cannot fix (a reverted or impossible
     * payout): its transfers never signed become `failed` with the reason, so the exception is open
     * and refundable again, and an operator sees why in the payment's payouts.
     */
    async exceptionRefundNotSent(payoutIds: string[], reason: string): Promise<void> {
      await failUnsentPayouts(db, payoutIds, `not sent: ${reason}`);
    },
  };
}

export type ExceptionActivities = ReturnType<typeof createExceptionActivities>;
