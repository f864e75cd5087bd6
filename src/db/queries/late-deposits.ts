import type { DatabaseOrTransaction } from '../client';
import { arrivalKeyOf } from '../../domain/exceptions';
import { newExceptionId } from '../../domain/ids';
import { depositLogKey, type DepositFact } from '../../domain/deposit-fact';
import { creditLog } from './chain-credits';
import { findSession } from './checkout-sessions';
import { findSimpleOrder } from './simple-orders';
import { recordPaymentException, type PaymentExceptionRow } from './payment-exceptions';

/**
 * A confirmed transfer to the deposit address of a session or simple order that has ended (decisions
 * §12): credited to it (the log is its money, never another payment's), and recorded as an
 * exception, `duplicate` when it was paid, else `late`. Keyed by the transfer, so the provider's
 * callback for the same transfer and a watcher's re-sent log find this one record. Null when the log
 * belongs to another payment or the payment is still open (its workflow decides then).
 */
export async function recordLateDeposit(
  db: DatabaseOrTransaction,
  paymentId: string,
  fact: DepositFact,
): Promise<(PaymentExceptionRow & { inserted: boolean }) | null> {
  const session = await findSession(db, paymentId);
  const order = session ? undefined : await findSimpleOrder(db, paymentId);
  const payment = session
    ? { kind: 'checkout_session' as const, status: session.status, paid: session.status === 'completed' }
    : order
      ? { kind: 'simple_order' as const, status: order.status, paid: order.status === 'settled' }
      : null;
  if (!payment) return null;
  const held = await creditLog(db, paymentId, { ...fact, amountMicro: BigInt(fact.amountMicro), blockNumber: BigInt(fact.blockNumber) });
  if (!held || payment.status === 'pending' || payment.status === 'processing') return null;
  // A zero-value Transfer (anyone can send one to any address) is recorded as its credit above,
  // never an exception: it is no money (decisions §14, dust).
  if (BigInt(fact.amountMicro) <= 0n) return null;
  return recordPaymentException(db, {
    id: newExceptionId(),
    paymentKind: payment.kind,
    paymentId,
    kind: payment.paid ? 'duplicate' : 'late',
    arrivalKey: arrivalKeyOf({ network: fact.network, transactionHash: fact.transactionHash }),
    amountMicro: BigInt(fact.amountMicro),
    references: {
      transactionHash: fact.transactionHash,
      log: depositLogKey(fact),
      from: fact.from,
      depositAddress: fact.to,
      asset: fact.asset,
      paymentStatus: payment.status,
    },
  });
}
