import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import { ACCEPTABLE_FROM, completeAcceptedSession } from '../db/queries/accepted-sessions';
import { lockSession } from '../db/queries/checkout-sessions';
import { findPaymentException, lockPaymentException, resolvePaymentException } from '../db/queries/payment-exceptions';
import { insertTransactionOnce } from '../db/queries/transactions';
import { isAcceptable, type ExceptionStatus } from '../domain/exceptions';
import { commissionSplit } from '../domain/money';

// The exception workflow's side effects (decisions §12), each idempotent.

export const NOT_ACCEPTABLE = 'NotAcceptable';

export interface Acceptance {
  paymentId: string;
  paymentStatus: string;
  /** This call completed the session (false on a retry that finds it done). */
  completedNow: boolean;
}

export function createExceptionActivities({ db, now }: { db: Database; now: () => Date }) {
  return {
    async exceptionStatus(exceptionId: string): Promise<ExceptionStatus> {
      const exception = await findPaymentException(db, exceptionId);
      if (!exception) throw ApplicationFailure.nonRetryable(`no exception ${exceptionId}`, 'ExceptionMissing');
      return exception.status;
    },

    /**
     * A late or underpaid payment accepted as the payment: gross = the money that arrived, the
     * commission split, the transaction row, the session completed and the exception accepted, in
     * one database transaction. A retry finds the exception accepted and changes nothing.
     */
    async acceptException(exceptionId: string): Promise<Acceptance> {
      return db.transaction(async (tx) => {
        const exception = await lockPaymentException(tx, exceptionId);
        if (!exception) throw ApplicationFailure.nonRetryable(`no exception ${exceptionId}`, 'ExceptionMissing');
        const session = exception.paymentKind === 'checkout_session' ? await lockSession(tx, exception.paymentId) : undefined;
        if (!session) throw ApplicationFailure.nonRetryable('only a checkout session’s exception can be accepted', NOT_ACCEPTABLE);
        if (exception.status === 'accepted') return { paymentId: session.id, paymentStatus: session.status, completedNow: false };
        if (exception.status !== 'open' || !isAcceptable(exception.kind) || !(ACCEPTABLE_FROM as readonly string[]).includes(session.status)) {
          throw ApplicationFailure.nonRetryable(`a ${exception.status} ${exception.kind} exception of a ${session.status} session cannot be accepted`, NOT_ACCEPTABLE);
        }
        const split = commissionSplit(exception.amountMicro, session.commissionBps);
        const refs = (exception.references ?? {}) as Record<string, unknown>;
        const hash = typeof refs.transactionHash === 'string' ? refs.transactionHash : null;
        const completedAt = now();
        await insertTransactionOnce(tx, {
          paymentId: session.id,
          merchantId: session.merchantId,
          status: 'completed',
          sourceAmountMinor: session.amountMinor,
          sourceCurrency: session.currency,
          destinationAsset: session.destinationAsset,
          network: session.network,
          walletAddress: session.walletAddress,
          grossMicro: exception.amountMicro,
          merchantSettlementMicro: split.merchant,
          platformCommissionMicro: split.commission,
          commissionBps: session.commissionBps,
          provider: session.provider,
          providerPaymentId: session.providerPaymentId,
          // The proof is the operator's acceptance of this exception.
          providerEventId: `exception:${exception.id}`,
          transactionHash: hash,
          depositTransactionHash: hash,
          explorerUrl: null,
          completedAt,
        });
        await completeAcceptedSession(tx, session.id, completedAt);
        await resolvePaymentException(tx, exception.id, 'accepted');
        return { paymentId: session.id, paymentStatus: 'completed', completedNow: true };
      });
    },
  };
}

export type ExceptionActivities = ReturnType<typeof createExceptionActivities>;
