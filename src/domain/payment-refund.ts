import { balanced, ledgerAccount, type Posting } from './ledger';
import { formatCrypto } from './money';

// Refunds of a *completed* payment, wholly or partly (issue 29 item 3). Pure.
//
// The payment's money left its deposit address with the payout seconds after completion: the
// platform holds no merchant balance to take a refund from. So the refund is sent from the treasury,
// and what it sends is the merchant's debt to the platform, in the payment's asset and network. The
// merchant's later payouts there are reduced by the debt (the part withheld goes from their deposit
// address to the treasury) until it is repaid, so over time the platform never pays out, to the
// merchant and to customers together, more than the merchant was credited. The commission stays
// earned: the merchant refunds their customer, the platform did its work.
//
// Bounds, each checked before anything is planned:
// - the amount: 0 < R ≤ G − already refunded (the gross the customer paid, less the refunds under
//   way or done);
// - the debt: the merchant's debt after the refund may not exceed what the platform can be sure to
//   get back soon, i.e. their payouts of the last 30 days in that asset and network plus what is
//   credited to them and not yet paid out (that payout is reduced first). A merchant whose business
//   stopped cannot draw the treasury down by refunding old payments.

/** How far back a merchant's payouts count towards the debt a refund may create. */
export const REFUND_DEBT_WINDOW_MS = 30 * 24 * 3600 * 1000;

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

export type RefundDebtCheck = { ok: true; debtAfterMicro: bigint } | { ok: false; message: string };

/**
 * The merchant's debt after the refund against what will repay it: their payouts of the last
 * 30 days (REFUND_DEBT_WINDOW_MS) and their credits not yet paid out, in the payment's asset and network.
 */
export function checkRefundDebt(input: {
  debtMicro: bigint;
  requestedMicro: bigint;
  paidOutRecentlyMicro: bigint;
  unpaidMicro: bigint;
}): RefundDebtCheck {
  const after = input.debtMicro + input.requestedMicro;
  const cover = input.paidOutRecentlyMicro + input.unpaidMicro;
  if (after > cover)
    return {
      ok: false,
      message: `This refund would bring the merchant's refund debt to ${formatCrypto(after)}, more than their payouts of the last 30 days and unpaid credits (${formatCrypto(cover)}).`,
    };
  return { ok: true, debtAfterMicro: after };
}

/** A merchant payout of `netMicro` while they owe `debtMicro`: what still goes to them, and what is withheld to repay the debt. */
export function withholdFromPayout(input: { netMicro: bigint; debtMicro: bigint }): { sendMicro: bigint; withheldMicro: bigint } {
  const debt = input.debtMicro > 0n ? input.debtMicro : 0n;
  const withheld = debt < input.netMicro ? debt : input.netMicro;
  return { sendMicro: input.netMicro - withheld, withheldMicro: withheld };
}

/**
 * A completed payment's refund, confirmed on chain: the treasury paid it, the merchant owes it. The
 * debt has its own account (rather than merchant_payable, whose balance also holds credits whose
 * payout is still under way), so the outstanding debt is that account's balance.
 */
export function completedPaymentRefunded(input: {
  refundId: string;
  paymentId: string;
  merchantId: string;
  treasury: string;
  asset: string;
  network: string;
  txHash: string | null;
  amountMicro: bigint;
}): Posting {
  return balanced({
    postingId: `refund:${input.refundId}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.merchantDebt(input.merchantId), amount: input.amountMicro },
      { account: ledgerAccount.treasury(input.treasury), amount: -input.amountMicro },
    ],
  });
}

/**
 * Part of a merchant's payout withheld to repay their refund debt, confirmed on chain: the money went
 * from the deposit address to the treasury, and the merchant's payable is settled by the debt's
 * repayment instead of a transfer to them.
 */
export function refundDebtRepaid(input: {
  payoutId: string;
  paymentId: string;
  merchantId: string;
  depositAddress: string;
  treasury: string;
  asset: string;
  network: string;
  txHash: string | null;
  amountMicro: bigint;
}): Posting {
  return balanced({
    postingId: `repaid:${input.payoutId}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.treasury(input.treasury), amount: input.amountMicro },
      { account: ledgerAccount.deposit(input.depositAddress), amount: -input.amountMicro },
      { account: ledgerAccount.merchantPayable(input.merchantId), amount: input.amountMicro },
      { account: ledgerAccount.merchantDebt(input.merchantId), amount: -input.amountMicro },
    ],
  });
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
