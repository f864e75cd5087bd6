import { balanced, ledgerAccount, type Posting } from './ledger';
import { formatCryptoAmount as amountText } from './money';

// Merchant balances and their movements (docs/settlement.md): which account a merchant's money is in,
// the postings that move it, and the decisions that say how much may move. Pure: the database writes
// what these build, in the transaction of the state change that causes them.
//
// The ledger's sign convention (ledger.ts): debits positive, credits negative. A merchant's balances
// are what the platform owes them, so their accounts carry credit (negative) balances; the figures
// below are always the amount owed, positive.

export const balanceAccount = {
  pending: (merchantId: string) => `merchant:${merchantId}:pending`,
  available: (merchantId: string) => `merchant:${merchantId}:available`,
  reserved: (merchantId: string) => `merchant:${merchantId}:reserved`,
  // Payouts and refunds planned or sent, not yet confirmed: no longer the merchant's to spend, not yet
  // off the treasury.
  outgoing: (merchantId: string) => `merchant:${merchantId}:outgoing`,
  // What operators put into a treasury from outside (stablecoin, or native coin for gas): equity.
  platformFunding: 'platform_funding',
} as const;

export const PAYOUT_SCHEDULES = ['instant', 'daily', 'weekly', 'manual'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

/** One merchant's balance in one network and asset, in micro units owed to them. */
export interface MerchantBalance {
  pending: bigint;
  available: bigint;
  reserved: bigint;
  outgoing: bigint;
}

/** The merchant's balance from the ledger's account balances (debit positive) of one network and asset. */
export function merchantBalance(merchantId: string, balanceOf: (account: string) => bigint): MerchantBalance {
  return {
    pending: -balanceOf(balanceAccount.pending(merchantId)),
    available: -balanceOf(balanceAccount.available(merchantId)),
    reserved: -balanceOf(balanceAccount.reserved(merchantId)),
    outgoing: -balanceOf(balanceAccount.outgoing(merchantId)),
  };
}

/** Where a posting moves money: one network and one asset. */
interface Place {
  network: string;
  asset: string;
}

/**
 * A completion proven on chain: the deposit address holds G; the merchant's share is pending, the
 * commission earned. The commission never moves on chain by itself: it stays in the treasury once swept.
 */
export function paymentCompleted(
  input: Place & {
    paymentId: string;
    merchantId: string;
    depositAddress: string;
    txHash: string | null;
    grossMicro: bigint;
    merchantMicro: bigint;
    commissionMicro: bigint;
  },
): Posting {
  return balanced({
    postingId: `completion:${input.paymentId}`,
    network: input.network,
    asset: input.asset,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.deposit(input.depositAddress), amount: input.grossMicro },
      { account: balanceAccount.pending(input.merchantId), amount: -input.merchantMicro },
      { account: ledgerAccount.commissionRevenue, amount: -input.commissionMicro },
    ],
  });
}

/**
 * How a payment's share leaves `pending` when its hold ends: the merchant's reserve is filled up to
 * its target first (money kept back for refunds), the rest becomes available.
 */
export function releaseSplit(input: { amountMicro: bigint; reservedMicro: bigint; reserveTargetMicro: bigint }): {
  toReserved: bigint;
  toAvailable: bigint;
} {
  const gap = input.reserveTargetMicro - input.reservedMicro;
  const toReserved = gap <= 0n ? 0n : gap < input.amountMicro ? gap : input.amountMicro;
  return { toReserved, toAvailable: input.amountMicro - toReserved };
}

/** A payment's share moves from `pending` once its hold (PAYOUT_HOLD_SECONDS) has passed. */
export function holdReleased(
  input: Place & { paymentId: string; merchantId: string; amountMicro: bigint; reservedMicro: bigint; reserveTargetMicro: bigint },
): Posting {
  const { toReserved, toAvailable } = releaseSplit(input);
  return balanced({
    postingId: `released:${input.paymentId}`,
    network: input.network,
    asset: input.asset,
    paymentId: input.paymentId,
    txHash: null,
    lines: [
      { account: balanceAccount.pending(input.merchantId), amount: input.amountMicro },
      { account: balanceAccount.reserved(input.merchantId), amount: -toReserved },
      { account: balanceAccount.available(input.merchantId), amount: -toAvailable },
    ],
  });
}

/** A confirmed sweep: what the receipt shows each deposit address sent now sits in the treasury. */
export function sweepConfirmed(
  input: Place & { sweepId: string; treasury: string; txHash: string; deposits: { address: string; amountMicro: bigint }[] },
): Posting {
  const total = input.deposits.reduce((sum, d) => sum + d.amountMicro, 0n);
  return balanced({
    postingId: `sweep:${input.sweepId}`,
    network: input.network,
    asset: input.asset,
    paymentId: null,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.treasury(input.treasury), amount: total },
      ...input.deposits.map((d) => ({ account: ledgerAccount.deposit(d.address), amount: -d.amountMicro })),
    ],
  });
}

/** What an outgoing transfer takes from each of the merchant's balances. */
/**
 * How far a settlement run moves the merchant's reserve towards its target before a payout: filled
 * from `available` (as far as it goes) when below, the excess made available again when above (the
 * operator lowered the target). Positive: available → reserved; negative: back. Pure.
 */
export function reserveMove(input: { availableMicro: bigint; reservedMicro: bigint; reserveTargetMicro: bigint }): bigint {
  const gap = input.reserveTargetMicro - input.reservedMicro;
  if (gap <= 0n) return gap;
  const spare = input.availableMicro > 0n ? input.availableMicro : 0n;
  return gap < spare ? gap : spare;
}

/** The reserve brought towards its target: how far it moves (reserveMove), and its posting, or null when nothing moves. */
export function reserveAdjusted(
  input: Place & { adjustmentId: string; merchantId: string; availableMicro: bigint; reservedMicro: bigint; reserveTargetMicro: bigint },
): { moveMicro: bigint; posting: Posting | null } {
  const moveMicro = reserveMove(input);
  if (moveMicro === 0n) return { moveMicro, posting: null };
  const posting = balanced({
    postingId: `reserve:${input.adjustmentId}`,
    network: input.network,
    asset: input.asset,
    paymentId: null,
    txHash: null,
    lines: [
      { account: balanceAccount.available(input.merchantId), amount: moveMicro },
      { account: balanceAccount.reserved(input.merchantId), amount: -moveMicro },
    ],
  });
  return { moveMicro, posting };
}

export interface Draw {
  fromAvailable: bigint;
  fromReserved: bigint;
}

export type RefundDraw = ({ ok: true } & Draw) | { ok: false; availableMicro: bigint; message: string };

/**
 * A refund of a completed payment draws on the merchant's money only: `available` first, then
 * `reserved`. More than both hold is refused with what is available, so the platform's own money
 * (commission, operator funding, other merchants' balances) never pays for it.
 */
export function refundDraw(input: { asset: string; availableMicro: bigint; reservedMicro: bigint; requestedMicro: bigint }): RefundDraw {
  const available = positive(input.availableMicro);
  const reserved = positive(input.reservedMicro);
  const total = available + reserved;
  if (input.requestedMicro > total)
    return {
      ok: false,
      availableMicro: total,
      message: `The balance available for refunds is ${amountText(total)} ${input.asset}; the refund needs ${amountText(input.requestedMicro)} ${input.asset}. Top up your balance or wait for more payments.`,
    };
  const fromAvailable = input.requestedMicro < available ? input.requestedMicro : available;
  return { ok: true, fromAvailable, fromReserved: input.requestedMicro - fromAvailable };
}

/**
 * A payout or a refund planned: its amount is no longer the merchant's to spend (`outgoing`). Written
 * with the payout's row, before anything is signed.
 */
export function outgoingPlanned(input: Place & { outgoingId: string; merchantId: string; paymentId: string | null } & Draw): Posting {
  return balanced({
    postingId: `outgoing:${input.outgoingId}`,
    network: input.network,
    asset: input.asset,
    paymentId: input.paymentId,
    txHash: null,
    lines: [
      { account: balanceAccount.available(input.merchantId), amount: input.fromAvailable },
      { account: balanceAccount.reserved(input.merchantId), amount: input.fromReserved },
      { account: balanceAccount.outgoing(input.merchantId), amount: -(input.fromAvailable + input.fromReserved) },
    ],
  });
}

/** The receipt confirmed the transfer: the money left the treasury. */
export function outgoingConfirmed(
  input: Place & {
    outgoingId: string;
    merchantId: string;
    paymentId: string | null;
    treasury: string;
    txHash: string;
    amountMicro: bigint;
  },
): Posting {
  return balanced({
    postingId: `outgoing:${input.outgoingId}:confirmed`,
    network: input.network,
    asset: input.asset,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: balanceAccount.outgoing(input.merchantId), amount: input.amountMicro },
      { account: ledgerAccount.treasury(input.treasury), amount: -input.amountMicro },
    ],
  });
}

/** The transfer failed for good: its amount goes back where it was drawn from. */
export function outgoingFailed(input: Place & { outgoingId: string; merchantId: string; paymentId: string | null } & Draw): Posting {
  return balanced({
    postingId: `outgoing:${input.outgoingId}:failed`,
    network: input.network,
    asset: input.asset,
    paymentId: input.paymentId,
    txHash: null,
    lines: [
      { account: balanceAccount.outgoing(input.merchantId), amount: input.fromAvailable + input.fromReserved },
      { account: balanceAccount.available(input.merchantId), amount: -input.fromAvailable },
      { account: balanceAccount.reserved(input.merchantId), amount: -input.fromReserved },
    ],
  });
}

/**
 * A merchant's top-up address on one network: a deposit address like a payment's (the sweeper's
 * forwarder of its index), whose reference names its merchant instead of a payment. Money sent to it
 * is the merchant's balance.
 */
export const topUpReference = (merchantId: string, network: string) => `topup:${merchantId}:${network}`;

/** The merchant whose top-up address a deposit reference is, or null for a payment's. */
export function topUpMerchant(reference: string): string | null {
  const match = /^topup:([^:]+):[^:]+$/.exec(reference);
  return match ? match[1]! : null;
}

/**
 * Money a merchant sent to their own top-up address, confirmed: available at once, to refund from.
 * `postingId` is its log's arrival posting (`arrivalPostingPrefix`), so a reorg that takes the log
 * reverses it as it reverses any arrival; `reference` is the address's (`topUpReference`).
 */
export function topUpArrived(
  input: Place & { postingId: string; reference: string; merchantId: string; topUpAddress: string; txHash: string; amountMicro: bigint },
): Posting {
  return balanced({
    postingId: input.postingId,
    network: input.network,
    asset: input.asset,
    paymentId: input.reference,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.deposit(input.topUpAddress), amount: input.amountMicro },
      { account: balanceAccount.available(input.merchantId), amount: -input.amountMicro },
    ],
  });
}

/** An operator's funding of a treasury from outside (stablecoin, or the native coin for gas). */
export function treasuryFunded(input: Place & { fundingId: string; treasury: string; txHash: string; amount: bigint }): Posting {
  return balanced({
    postingId: `funding:${input.fundingId}`,
    network: input.network,
    asset: input.asset,
    paymentId: null,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.treasury(input.treasury), amount: input.amount },
      { account: balanceAccount.platformFunding, amount: -input.amount },
    ],
  });
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Whether a merchant's schedule makes a payout due now: `instant` every run; `daily` once per UTC day;
 * `weekly` once per ISO week (from Monday 00:00 UTC); `manual` only when asked for.
 */
export function payoutDue(input: { schedule: PayoutSchedule; lastPayoutAt: Date | null; now: Date; requested?: boolean }): boolean {
  if (input.requested) return true;
  const last = input.lastPayoutAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  switch (input.schedule) {
    case 'instant':
      return true;
    case 'manual':
      return false;
    case 'daily':
      return last < startOfUtcDay(input.now);
    case 'weekly': {
      // getUTCDay: Sunday 0 … Saturday 6; the ISO week starts on Monday.
      const sinceMonday = (input.now.getUTCDay() + 6) % 7;
      return last < startOfUtcDay(input.now) - sinceMonday * DAY_MS;
    }
  }
}

const startOfUtcDay = (at: Date) => Math.floor(at.getTime() / DAY_MS) * DAY_MS;

export type PayoutDecision = { pay: true; amountMicro: bigint } | { pay: false; reason: string };

/**
 * How much a due payout pays: the whole available balance, if it reaches the merchant's minimum and
 * the treasury holds it (the run's sweep comes first; what is not swept yet waits for the next run).
 */
export function payoutAmount(input: {
  asset: string;
  availableMicro: bigint;
  minimumMicro: bigint;
  treasuryMicro: bigint;
}): PayoutDecision {
  const amount = input.availableMicro;
  if (amount <= 0n) return { pay: false, reason: 'nothing is available' };
  if (amount < input.minimumMicro)
    return {
      pay: false,
      reason: `${amountText(amount)} ${input.asset} is available, below the minimum of ${amountText(input.minimumMicro)} ${input.asset}`,
    };
  if (input.treasuryMicro < amount)
    return {
      pay: false,
      reason: `the treasury holds ${amountText(positive(input.treasuryMicro))} ${input.asset}, ${amountText(amount)} needed`,
    };
  return { pay: true, amountMicro: amount };
}

const positive = (n: bigint) => (n > 0n ? n : 0n);
