import { positiveMicro } from './money';

// What a confirmed transfer to a payment's deposit address is. Written
// once, pure, and called by every path that records one (the payment's own run, and the watcher once
// the run has closed), so no path can credit what another would refuse.

/**
 * Where a payment stands for money that arrives: open (it may still be paid), paid, or ended unpaid
 * (or unable to take money: its merchant is suspended or not yet approved).
 */
export type PaymentPhase = 'open' | 'paid' | 'ended';

/** The payment's own money: its token (by asset, as the network's configuration names it) on its network. */
export interface PaymentTerms {
  network: string;
  asset: string;
  phase: PaymentPhase;
}

/** One confirmed transfer. `asset` is null for a token contract this deployment does not configure. */
export interface Arrival {
  network: string;
  asset: string | null;
  amountMicro: bigint;
}

/**
 * How a `chain_credits` row counts: only `credited` rows (the payment's own token while it is open)
 * make up its money. `held`: its own token, arrived when it could not be paid (an exception's money,
 * held for the customer); `wrong_asset`: another token's; `dust`: nobody's.
 */
export type CreditState = 'credited' | 'held' | 'wrong_asset' | 'dust';

export type ArrivalDecision =
  /** Counts towards G (open payment, its own token). */
  | { credit: 'credited'; exception: null }
  /** Money for an operator: recorded with the transfer as an exception the merchant is told of. */
  | { credit: 'held' | 'wrong_asset'; exception: 'late' | 'duplicate' | 'wrong_asset' }
  /** Recorded for reconciliation; no exception, no event, no workflow. */
  | { credit: 'dust'; exception: null };

/**
 * A session whose link another of its sessions paid was paid, through its sibling, however it ended
 * or before it did: money after that is a second payment for the link, a duplicate. An open session whose merchant takes no money is, for what arrives, ended: that money is an
 * exception (late), never the payment's.
 */
export function sessionPhase(s: {
  id: string;
  status: string;
  cancelReason: string | null;
  /** Its merchant is approved. */
  merchantTakesMoney: boolean;
  /** The session that paid its payment link, if it has one and it is paid. */
  linkPaidBy: string | null;
}): PaymentPhase {
  if (s.status === 'completed' || s.cancelReason === 'link_paid' || (s.linkPaidBy !== null && s.linkPaidBy !== s.id)) return 'paid';
  return (s.status === 'pending' || s.status === 'processing') && s.merchantTakesMoney ? 'open' : 'ended';
}

/**
 * Only the payment's own token on its own network credits it; anything else is `wrong_asset`, never
 * part of G, refundable in the token that arrived. Money of the right token after the payment ended is
 * `duplicate` (it was paid) or `late`. A zero-value transfer is always dust (anyone can send one, for
 * free, to any address); below `dustThresholdMicro` so is any transfer to a payment that has ended.
 */
export function classifyArrival(payment: PaymentTerms, arrival: Arrival, dustThresholdMicro: bigint): ArrivalDecision {
  if (arrival.amountMicro <= 0n) return { credit: 'dust', exception: null };
  const own = arrival.network === payment.network && arrival.asset !== null && arrival.asset === payment.asset;
  if (own && payment.phase === 'open') return { credit: 'credited', exception: null };
  // Only once the payment has ended: while it is open, every unit of another token is news to its merchant.
  if (payment.phase !== 'open' && arrival.amountMicro < dustThresholdMicro) return { credit: 'dust', exception: null };
  if (!own) return { credit: 'wrong_asset', exception: 'wrong_asset' };
  return { credit: 'held', exception: payment.phase === 'paid' ? 'duplicate' : 'late' };
}

/** What the payment's credits (its own token only) prove against G. */
export type Settlement =
  | { kind: 'unpriced' }
  | { kind: 'short'; creditedMicro: bigint; remainingMicro: bigint }
  | { kind: 'covered'; grossMicro: bigint; excessMicro: bigint };

/**
 * Credits ≥ G completes with gross = everything credited; the excess over G is an `overpaid`
 * exception. Without G (nobody has chosen how to pay yet) nothing completes.
 */
export function settlementOf(expectedMicro: bigint | null, creditedMicro: bigint): Settlement {
  if (expectedMicro === null) return { kind: 'unpriced' };
  if (creditedMicro <= 0n || creditedMicro < expectedMicro)
    return { kind: 'short', creditedMicro, remainingMicro: expectedMicro - creditedMicro };
  return { kind: 'covered', grossMicro: creditedMicro, excessMicro: creditedMicro - expectedMicro };
}

/**
 * Money that did not prove the payment, as its run sees it at a deadline:
 * at the end (`expiry`), credits short of G (or with no G at all) are `underpaid`, the credited
 * amount held for the customer; at either deadline, a provider's success with nothing credited is
 * `unverified` for the amount it claimed. A claim of no money (`claimedMicro` ≤ 0) is nothing to
 * verify. `claimedMicro` is null when there is no claim. Null: nothing to record.
 */
export type Shortfall = { kind: 'underpaid' | 'unverified'; amountMicro: bigint } | null;

export function shortfallOf(input: {
  at: 'claim' | 'expiry';
  expectedMicro: bigint | null;
  creditedMicro: bigint;
  claimedMicro: bigint | null;
}): Shortfall {
  const { at, expectedMicro: expected, creditedMicro: credited, claimedMicro: claimed } = input;
  if (at === 'expiry' && credited > 0n && (expected === null || credited < expected)) return { kind: 'underpaid', amountMicro: credited };
  if (credited === 0n && claimed !== null && claimed > 0n) return { kind: 'unverified', amountMicro: claimed };
  return null;
}

/** A provider's fact about a payment whose run has ended. */
interface LateProviderFact {
  succeeded: boolean;
  /** The provider payment the fact is about. */
  providerPaymentId: string | null | undefined;
  destinationAmount: string | null | undefined;
  /** The payment was paid (completed, settled) before the fact. */
  paid: boolean;
  /** The provider payment that paid it, if one did. */
  paidBy: string | null;
  /** Another session of its payment link paid the link: any success is a second payment. */
  linkPaidElsewhere: boolean;
  /** How the payment is proven. */
  verification: 'chain' | 'provider';
}

export type LateMoney = { kind: 'late' | 'duplicate' | 'unverified'; amountMicro: bigint } | null;

/**
 * Money a provider reports after the payment ended, one exception per arrival: a success of the
 * provider payment that paid it is the provider repeating itself (nothing); a success of another one,
 * or any success once another session paid its link, is the customer paying twice (`duplicate`, a
 * second rail or tab); any other success is `late`. A success without a positive amount says no money
 * moved (nothing). On chain a provider's word is never money seen: it is `unverified`, and the
 * transfer's log, if it arrives, takes the record over.
 */
export function lateMoneyOf(fact: LateProviderFact): LateMoney {
  if (!fact.succeeded) return null;
  const paidTwice = fact.linkPaidElsewhere || (fact.paid && fact.paidBy !== null && fact.providerPaymentId !== fact.paidBy);
  if (fact.paid && !paidTwice) return null;
  const amountMicro = positiveMicro(fact.destinationAmount);
  if (amountMicro === null) return null;
  return { kind: fact.verification === 'chain' ? 'unverified' : paidTwice ? 'duplicate' : 'late', amountMicro };
}
