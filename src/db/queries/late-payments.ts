import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, simpleOrders } from '../schema';
import { setProviderEventState } from './provider-events';

export type PaymentKind = 'checkout_session' | 'simple_order';

/** Flags a payment for an operator; the first flag stays (a later event never overwrites an earlier one). */
export async function flagPaymentForReview(db: DatabaseOrTransaction, kind: PaymentKind, id: string, flag: string, note: string): Promise<void> {
  if (kind === 'checkout_session') {
    await db
      .update(checkoutSessions)
      .set({ reviewFlag: flag, reviewNote: note, updatedAt: sql`now()` })
      .where(sql`${checkoutSessions.id} = ${id} and ${checkoutSessions.reviewFlag} is null`);
  } else {
    await db
      .update(simpleOrders)
      .set({ reviewFlag: flag, reviewNote: note, updatedAt: sql`now()` })
      .where(sql`${simpleOrders.transactionCode} = ${id} and ${simpleOrders.reviewFlag} is null`);
  }
}

/**
 * Money reported after the payment ended (decisions §6): a success is flagged for an operator,
 * never lost; any late event is marked late on its provider event. One policy for both engines,
 * written by the workflows' activities and, when the workflow has closed, by the callback path.
 */
export async function recordLateFact(
  db: DatabaseOrTransaction,
  input: { kind: PaymentKind; paymentId: string; provider: string; eventId: string; succeeded: boolean; status: string; summary: string; at: Date },
): Promise<void> {
  if (input.succeeded) {
    await flagPaymentForReview(
      db,
      input.kind,
      input.paymentId,
      'late_success',
      `Provider reported success (event ${input.eventId}: ${input.summary}) at ${input.at.toISOString()} after the payment was ${input.status}.`,
    );
  }
  await setProviderEventState(db, { provider: input.provider, eventId: input.eventId }, 'late', `payment was ${input.status}`);
}
