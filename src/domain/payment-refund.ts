import { formatCrypto } from './money';

// Refunds of a *completed* payment, wholly or partly. Pure.
//
// The payment's money is the merchant's balance once it completed (docs/settlement.md): a refund is
// drawn from that balance (available, then reserved) when it is asked for, and sent from the
// treasury, which holds the swept money. The platform's own money never pays a merchant's refund.
// The commission stays earned: the merchant refunds their customer, the platform did its work.
//
// The amount: 0 < R ≤ G − already refunded (the gross the customer paid, less the refunds under
// way or done). What the balance holds is checked where it is drawn (db/queries/merchant-balances.ts).

export type RefundAmountCheck = { ok: true; amountMicro: bigint } | { ok: false; message: string };

/** The amount asked for against what the payment was credited and what was refunded already. */
export function checkRefundAmount(input: { grossMicro: bigint; refundedMicro: bigint; requestedMicro: bigint }): RefundAmountCheck {
  const rest = refundableMicro(input);
  if (input.requestedMicro <= 0n) return { ok: false, message: 'A refund must be more than 0.' };
  if (rest === 0n) return { ok: false, message: 'This payment has been refunded in full.' };
  if (input.requestedMicro > rest)
    return {
      ok: false,
      message: `At most ${formatCrypto(rest)} of this payment can be refunded (${formatCrypto(input.grossMicro)} paid, ${formatCrypto(input.refundedMicro)} refunded).`,
    };
  return { ok: true, amountMicro: input.requestedMicro };
}

/** What is left to refund of a payment: G − refunded, never below 0. */
export function refundableMicro(input: { grossMicro: bigint; refundedMicro: bigint }): bigint {
  const rest = input.grossMicro - input.refundedMicro;
  return rest > 0n ? rest : 0n;
}

/**
 * `payment.refunded` for a completed payment's refund: one event per refund (its id is the event's
 * subject), once its transfer is confirmed. The payment's fields as in the exception's refund event,
 * with the refund's id in place of an exception's, and what the payment has had refunded in all.
 */
export function paymentRefundedEventBody(e: {
  eventId: string;
  merchantId: string;
  paymentId: string;
  orderId: string | null;
  destinationAsset: string;
  network: string;
  refundId: string;
  grossMicro: bigint;
  refundedMicro: bigint;
  refund: { address: string; amountMicro: bigint; transactionHash: string; explorerUrl: string | null };
  createdAt: Date;
}): Record<string, unknown> {
  return {
    event: 'payment.refunded',
    eventId: e.eventId,
    eventSource: 'refund',
    merchantId: e.merchantId,
    sessionId: e.paymentId,
    transactionId: e.paymentId,
    orderId: e.orderId ?? '',
    refundId: e.refundId,
    status: 'refunded',
    amount: formatCrypto(e.refund.amountMicro),
    grossAmount: formatCrypto(e.grossMicro),
    refundedAmount: formatCrypto(e.refundedMicro),
    destinationAsset: e.destinationAsset,
    network: e.network,
    refund: {
      address: e.refund.address,
      amount: formatCrypto(e.refund.amountMicro),
      transactionHash: e.refund.transactionHash,
      explorerUrl: e.refund.explorerUrl,
    },
    createdAt: e.createdAt.toISOString(),
  };
}
