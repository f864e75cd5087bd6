import type { DatabaseOrTransaction } from '../client';
import type { LateMoney } from '../../domain/arrivals';
import { arrivalKeyOf } from '../../domain/exceptions';
import { newExceptionId } from '../../domain/ids';
import { recordPaymentException, type PaymentExceptionRow } from './payment-exceptions';
import { setProviderEventState } from './provider-events';

export type PaymentKind = 'checkout_session' | 'simple_order';

export interface LateFact {
  kind: PaymentKind;
  paymentId: string;
  provider: string;
  network: string;
  eventId: string;
  /** What the fact is, decided by domain/arrivals.ts `lateMoneyOf`: null when it is no money. */
  money: LateMoney;
  status: string;
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
  providerPaymentId?: string | undefined;
  at: Date;
  /** false: the caller marks the provider event late itself, once what follows the record is done. */
  markLate?: boolean;
}

/**
 * Writes a fact reported after the payment ended as domain/arrivals.ts
 * `lateMoneyOf` decided it: money is an exception, one per arrival, never overwriting an earlier
 * one; any late event is marked late on its provider event. Written by the workflows' activities
 * and, when the workflow has closed, by the callback path. Returns the exception, with `inserted`
 * true the first time.
 */
export async function recordLateFact(
  db: DatabaseOrTransaction,
  input: LateFact,
): Promise<(PaymentExceptionRow & { inserted: boolean }) | null> {
  let exception: (PaymentExceptionRow & { inserted: boolean }) | null = null;
  if (input.money) {
    exception = await recordPaymentException(db, {
      id: newExceptionId(),
      paymentKind: input.kind,
      paymentId: input.paymentId,
      kind: input.money.kind,
      arrivalKey: arrivalKeyOf(input),
      amountMicro: input.money.amountMicro,
      references: {
        provider: input.provider,
        providerEventId: input.eventId,
        providerPaymentId: input.providerPaymentId ?? null,
        transactionHash: input.transactionHash ?? null,
        destinationAmount: input.destinationAmount ?? null,
        paymentStatus: input.status,
        reportedAt: input.at.toISOString(),
      },
    });
  }
  if (input.markLate !== false) await markFactLate(db, input);
  return exception;
}

export async function markFactLate(db: DatabaseOrTransaction, input: Pick<LateFact, 'provider' | 'eventId' | 'status'>): Promise<void> {
  await setProviderEventState(db, { provider: input.provider, eventId: input.eventId }, 'late', `payment was ${input.status}`);
}
