import type { DatabaseOrTransaction } from '../client';
import { lateMoneyOf } from '../../domain/arrivals';
import type { ProviderFact } from '../../domain/provider-fact';
import { arrivalKeyOf } from '../../domain/exceptions';
import { newExceptionId } from '../../domain/ids';
import { recordPaymentException, type PaymentExceptionRow } from './payment-exceptions';
import { setProviderEventState } from './provider-events';

export type PaymentKind = 'checkout_session' | 'simple_order';

/** A payment that has ended, as it stood when a provider's fact for it came: what the late-money policy reads. */
export interface EndedPayment {
  kind: PaymentKind;
  id: string;
  provider: string;
  network: string;
  status: string;
  /** It was paid: a completed (or settled) session, a settled order. */
  paid: boolean;
  /** The provider payment that paid it, if one did. */
  paidBy: string | null;
  /** Another session of its payment link paid the link. */
  linkPaidElsewhere: boolean;
  verification: 'chain' | 'provider';
}

/**
 * The one recorder of a provider's fact for a payment that has ended, for the workflows' activities
 * and, when the workflow has closed, the callback path: domain/arrivals.ts `lateMoneyOf` decides what
 * it is, and money is an exception, one per arrival, never overwriting an earlier one; the provider
 * event is marked late (`markLate: false`: the caller marks it itself, once what follows the record
 * is done). Returns the exception, with `inserted` true the first time; null when it was no money.
 */
export async function recordLateFact(
  db: DatabaseOrTransaction,
  payment: EndedPayment,
  fact: ProviderFact,
  at: Date,
  options: { markLate?: boolean } = {},
): Promise<(PaymentExceptionRow & { inserted: boolean }) | null> {
  const money = lateMoneyOf({
    succeeded: fact.type === 'succeeded',
    providerPaymentId: fact.providerPaymentId,
    destinationAmount: fact.destinationAmount,
    paid: payment.paid,
    paidBy: payment.paidBy,
    linkPaidElsewhere: payment.linkPaidElsewhere,
    verification: payment.verification,
  });
  let exception: (PaymentExceptionRow & { inserted: boolean }) | null = null;
  if (money) {
    exception = await recordPaymentException(db, {
      id: newExceptionId(),
      paymentKind: payment.kind,
      paymentId: payment.id,
      kind: money.kind,
      arrivalKey: arrivalKeyOf({ network: payment.network, transactionHash: fact.transactionHash, eventId: fact.eventId }),
      amountMicro: money.amountMicro,
      references: {
        provider: payment.provider,
        providerEventId: fact.eventId,
        providerPaymentId: fact.providerPaymentId ?? null,
        transactionHash: fact.transactionHash ?? null,
        destinationAmount: fact.destinationAmount ?? null,
        paymentStatus: payment.status,
        reportedAt: at.toISOString(),
      },
    });
  }
  if (options.markLate !== false) await markFactLate(db, { provider: payment.provider, eventId: fact.eventId, status: payment.status });
  return exception;
}

export async function markFactLate(db: DatabaseOrTransaction, input: { provider: string; eventId: string; status: string }): Promise<void> {
  await setProviderEventState(db, { provider: input.provider, eventId: input.eventId }, 'late', `payment was ${input.status}`);
}
