import type { DatabaseOrTransaction } from '../client';
import { arrivalKeyOf } from '../../domain/exceptions';
import { newExceptionId } from '../../domain/ids';
import { parseCrypto } from '../../domain/money';
import { recordPaymentException, type PaymentExceptionRow } from './payment-exceptions';
import { setProviderEventState } from './provider-events';

export type PaymentKind = 'checkout_session' | 'simple_order';

/** A provider's amount in micro units when it is a positive amount; anything else is no money to record. */
export function positiveMicro(text: string | undefined | null): bigint | null {
  if (!text) return null;
  try {
    const micro = parseCrypto(text);
    return micro > 0n ? micro : null;
  } catch {
    return null;
  }
}

export interface LateFact {
  kind: PaymentKind;
  paymentId: string;
  provider: string;
  network: string;
  eventId: string;
  succeeded: boolean;
  /** `duplicate` when the payment was already paid by another provider payment (another rail or tab). */
  exceptionKind?: 'late' | 'duplicate';
  /**
   * How the payment is proven (decisions §11). On chain, a provider's word is never money seen: it is
   * recorded `unverified`, and the transfer's log, if it arrives, takes the record over as late or
   * duplicate with the amount that arrived (payment-exceptions.ts).
   */
  verification: 'chain' | 'provider';
  status: string;
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
  providerPaymentId?: string | undefined;
  at: Date;
  /** false: the caller marks the provider event late itself, once what follows the record is done. */
  markLate?: boolean;
}

/**
 * Money reported after the payment ended (decisions §6, §12): a success is a `late` exception, one
 * per arrival, never overwriting an earlier one; any late event is marked late on its provider
 * event. One policy for both engines, written by the workflows' activities and, when the workflow
 * has closed, by the callback path. Returns the exception, with `inserted` true the first time.
 */
export async function recordLateFact(
  db: DatabaseOrTransaction,
  input: LateFact,
): Promise<(PaymentExceptionRow & { inserted: boolean }) | null> {
  let exception: (PaymentExceptionRow & { inserted: boolean }) | null = null;
  // A success without a positive amount says no money moved (the callback path refuses such a
  // success; a fact signalled before it did is still marked late below, with nothing to resolve).
  const amountMicro = input.succeeded ? positiveMicro(input.destinationAmount) : null;
  if (amountMicro !== null) {
    exception = await recordPaymentException(db, {
      id: newExceptionId(),
      paymentKind: input.kind,
      paymentId: input.paymentId,
      kind: input.verification === 'chain' ? 'unverified' : (input.exceptionKind ?? 'late'),
      arrivalKey: arrivalKeyOf(input),
      amountMicro,
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
