// Double entry, debits positive and credits negative, each posting summing to
// zero per (asset, network). Asset accounts (a deposit address, the treasury, gas spent) carry debit
// balances; what the platform owes or earned (a merchant's payable, commission revenue) credit
// balances. Pure: the database writes what these build, in the transaction of the state change.

import { balanceAccount } from './balances';

export const NATIVE_ASSET = 'native';

export const ledgerAccount = {
  deposit: (address: string) => `deposit:${address}`,
  treasury: (address: string) => `treasury:${address}`,
  // A simple order's customer: the stablecoin bought is owed to their wallet.
  customerPayable: (transactionCode: string) => `customer_payable:${transactionCode}`,
  // Money of an exception while the platform holds it for the customer: owed back.
  exceptionHeld: (exceptionId: string) => `exception:${exceptionId}`,
  // Transfers below the dust threshold to an ended payment: at the deposit address,
  // owed to nobody, never an exception. Posted so that reconciliation expects them there.
  unclaimedDust: 'unclaimed_dust',
  commissionRevenue: 'commission_revenue',
  // Simple orders' network fees: what pays the treasury's gas for their payouts,
  // apart from merchants' commission so that neither pays for the other.
  networkFeeRevenue: 'network_fee_revenue',
  gasExpense: 'gas_expense',
} as const;

export interface PostingLine {
  account: string;
  /** Positive: debit; negative: credit. Micro units of a stablecoin, wei of the native coin. */
  amount: bigint;
}

export interface Posting {
  postingId: string;
  asset: string;
  network: string;
  paymentId: string | null;
  txHash: string | null;
  lines: PostingLine[];
}

export class UnbalancedPostingError extends Error {}

/** Refuses a posting whose lines do not sum to zero before it reaches the database (which refuses it too). */
export function balanced(posting: Posting): Posting {
  const total = posting.lines.reduce((sum, l) => sum + l.amount, 0n);
  if (total !== 0n) throw new UnbalancedPostingError(`posting ${posting.postingId} sums to ${total}`);
  return { ...posting, lines: posting.lines.filter((l) => l.amount !== 0n) };
}

/** A simple order proven on chain: the deposit address holds G, all of it owed to the customer's wallet. */
export function orderCredited(input: {
  transactionCode: string;
  depositAddress: string;
  asset: string;
  network: string;
  txHash: string | null;
  grossMicro: bigint;
}): Posting {
  return balanced({
    postingId: `completion:${input.transactionCode}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.transactionCode,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.deposit(input.depositAddress), amount: input.grossMicro },
      { account: ledgerAccount.customerPayable(input.transactionCode), amount: -input.grossMicro },
    ],
  });
}

/**
 * The posting of one confirmed log's arrival (an exception's money, or dust): `arrival:<log>#<n>`, the
 * n-th time it arrived. If its block leaves the chain the posting is reversed (`…:left`), and the log
 * mined again is its next arrival, posted anew.
 */
export const arrivalPostingPrefix = (log: { network: string; transactionHash: string; logIndex: number }) =>
  `arrival:${log.network}:${log.transactionHash.toLowerCase()}:${log.logIndex}#`;

/** The posting that undoes `posting` (its block left the chain): every line negated. */
export function postingLeft(posting: Posting): Posting {
  return balanced({
    ...posting,
    postingId: `${posting.postingId}:left`,
    lines: posting.lines.map((l) => ({ account: l.account, amount: -l.amount })),
  });
}

/** Money of an arrival at a deposit address that is not the payment's money. */
export interface HeldArrival {
  /** Its log's arrival posting (`arrivalPostingPrefix` and its count), or, for money that is not one log's (an underpaid payment's credits), `exception:<id>`. */
  postingId: string;
  paymentId: string;
  depositAddress: string;
  /** The token that arrived: a configured asset name, or `erc20:<contract>` for any other contract. */
  asset: string;
  network: string;
  txHash: string | null;
  amountMicro: bigint;
}

/** An arrival held at its deposit address for `owner`: the address holds it, `owner` is owed it. */
const heldFor = (input: HeldArrival, owner: string): Posting =>
  balanced({
    postingId: input.postingId,
    asset: input.asset,
    network: input.network,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.deposit(input.depositAddress), amount: input.amountMicro },
      { account: owner, amount: -input.amountMicro },
    ],
  });

/**
 * An exception's money, when it arrives (late, duplicate, wrong asset, or the credits of an
 * underpaid payment at its end): the deposit address holds it for the customer until an operator
 * refunds it or accepts it as the payment. Its refund and its acceptance post against this account.
 */
export const exceptionArrived = (input: HeldArrival & { exceptionId: string }): Posting =>
  heldFor(input, ledgerAccount.exceptionHeld(input.exceptionId));

/**
 * One log of money an exception holds as a whole (an underpaid payment's credits, held under
 * `exception:<id>` at its end) left the chain with its block: the deposit address no longer holds
 * it, and the exception holds that much less, so neither its acceptance nor its refund can spend it.
 * Once per log (`logKey`, depositLogKey).
 */
export function exceptionLogLeft(input: {
  exceptionId: string;
  logKey: string;
  paymentId: string;
  depositAddress: string;
  asset: string;
  network: string;
  txHash: string;
  amountMicro: bigint;
}): Posting {
  return balanced({
    postingId: `exception:${input.exceptionId}:left:${input.logKey}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.deposit(input.depositAddress), amount: -input.amountMicro },
      { account: ledgerAccount.exceptionHeld(input.exceptionId), amount: input.amountMicro },
    ],
  });
}

/** Dust: it stays at the deposit address, owed to nobody. */
export const dustArrived = (input: HeldArrival): Posting => heldFor(input, ledgerAccount.unclaimedDust);

/**
 * An exception accepted as the payment: the money held for the customer is the payment's after all.
 * It goes back to the deposit address's own account, from which the completion posting (posted
 * beside this, as for any completion) splits it between the merchant and the commission.
 */
export function exceptionAccepted(input: {
  exceptionId: string;
  paymentId: string;
  depositAddress: string;
  asset: string;
  network: string;
  amountMicro: bigint;
}): Posting {
  return balanced({
    postingId: `accepted:${input.exceptionId}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.paymentId,
    txHash: null,
    lines: [
      { account: ledgerAccount.exceptionHeld(input.exceptionId), amount: input.amountMicro },
      { account: ledgerAccount.deposit(input.depositAddress), amount: -input.amountMicro },
    ],
  });
}

/**
 * A simple order's network fee, charged when its payout is planned: of what the deposit address
 * holds for the customer, `feeMicro` is the platform's revenue instead (the fee's own payout then
 * moves it to the treasury, as a commission's does).
 */
export function orderFeeCharged(input: { transactionCode: string; asset: string; network: string; feeMicro: bigint }): Posting {
  return balanced({
    postingId: `network_fee:${input.transactionCode}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.transactionCode,
    txHash: null,
    lines: [
      { account: ledgerAccount.customerPayable(input.transactionCode), amount: input.feeMicro },
      { account: ledgerAccount.networkFeeRevenue, amount: -input.feeMicro },
    ],
  });
}

export interface ConfirmedPayout {
  id: string;
  paymentId: string;
  merchantId: string;
  kind: 'merchant' | 'refund' | 'customer' | 'payment_refund' | 'sweep';
  /** The refunded exception (kind refund). */
  exceptionId?: string | null;
  /** A contract call's calldata (the treasury calls the network's sweeper); absent for a plain transfer. */
  callData?: string | null;
  /** The deposit address whose money a call of the sweeper's `forward` moved (the treasury paid the gas). */
  forwardedFrom?: string | null;
  asset: string;
  network: string;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
  txHash: string;
  feeWei: bigint;
}

/** A settlement run's row (docs/settlement.md): a sweep, or a merchant's payout of many payments, named by its own id. */
export const isSettlementPayout = (p: { kind: string }) => p.kind === 'sweep' || p.kind === 'merchant';

function debitOf(p: ConfirmedPayout, treasury: string): string {
  switch (p.kind) {
    case 'merchant':
    case 'payment_refund':
      return balanceAccount.outgoing(p.merchantId);
    case 'sweep':
      return ledgerAccount.treasury(treasury);
    case 'customer':
      return ledgerAccount.customerPayable(p.paymentId);
    case 'refund':
      if (!p.exceptionId) throw new Error(`refund payout ${p.id} names no exception`);
      return ledgerAccount.exceptionHeld(p.exceptionId);
  }
}

/** Who paid a payout's gas: the treasury, which sends every payout (a deposit address never sends). */
const payerOf = (p: { fromAddress: string }) => ledgerAccount.treasury(p.fromAddress);

/** The gas a confirmed payout's sender paid, in the native coin. */
export function payoutFee(p: ConfirmedPayout): Posting {
  return balanced({
    network: p.network,
    paymentId: p.paymentId,
    txHash: p.txHash,
    postingId: `fee:${p.id}`,
    asset: NATIVE_ASSET,
    lines: [
      { account: ledgerAccount.gasExpense, amount: p.feeWei },
      { account: payerOf(p), amount: -p.feeWei },
    ],
  });
}

/**
 * A confirmed payout: the money it moved, and the gas its sender paid (in the native coin). A refund
 * pays back what its exception holds, posted when the money arrived (exceptionArrived).
 */
export function payoutConfirmed(p: ConfirmedPayout, treasury: string): Posting[] {
  const debit = debitOf(p, treasury);
  const credit = p.forwardedFrom ? ledgerAccount.deposit(p.forwardedFrom) : payerOf(p);
  const base = { network: p.network, paymentId: p.paymentId, txHash: p.txHash };
  const moved = balanced({
    ...base,
    postingId: `payout:${p.id}`,
    asset: p.asset,
    lines: [
      { account: debit, amount: p.amount },
      { account: credit, amount: -p.amount },
    ],
  });
  const fee = payoutFee(p);
  return [moved, fee].filter((posting) => posting.lines.length > 0);
}

/**
 * A payout whose transaction reverted: it moved nothing, but its sender paid the gas (in the native
 * coin). Posted under the transaction's hash, so a later re-signed transfer of the same payout posts
 * its own fee beside it.
 */
export function payoutRevertedFee(p: {
  id: string;
  paymentId: string;
  kind: ConfirmedPayout['kind'];
  network: string;
  fromAddress: string;
  txHash: string;
  feeWei: bigint;
}): Posting {
  const payer = payerOf(p);
  return balanced({
    postingId: `fee:${p.id}:${p.txHash}`,
    asset: NATIVE_ASSET,
    network: p.network,
    paymentId: p.paymentId,
    txHash: p.txHash,
    lines: [
      { account: ledgerAccount.gasExpense, amount: p.feeWei },
      { account: payer, amount: -p.feeWei },
    ],
  });
}

/**
 * A confirmed payout whose block left the chain (a reorg deeper than the confirmations) keeps its
 * postings, as the same signed transaction is sent again; once that transaction is mined again, its
 * fee may differ (the new block's base fee): the difference, under the new block's hash. Mined
 * reverted, it moved nothing after all: what its confirmation posted is undone (payoutUndone).
 */
export function payoutFeeMinedAgain(p: ConfirmedPayout & { postedFeeWei: bigint; blockHash: string }): Posting[] {
  const delta = p.feeWei - p.postedFeeWei;
  if (delta === 0n) return [];
  return [
    balanced({
      network: p.network,
      paymentId: p.paymentId,
      txHash: p.txHash,
      postingId: `fee:${p.id}:${p.blockHash.toLowerCase()}`,
      asset: NATIVE_ASSET,
      lines: [
        { account: ledgerAccount.gasExpense, amount: delta },
        { account: payerOf(p), amount: -delta },
      ],
    }),
  ];
}

/** The posting a payout's confirmation wrote for the money it moved (its fee apart). */
export function movedPostingOf(p: { id: string; kind: ConfirmedPayout['kind']; refundId?: string | null }): string {
  if (p.kind === 'sweep') return `sweep:${p.id}`;
  if (p.kind === 'merchant') return `outgoing:${p.id}:confirmed`;
  if (p.kind === 'payment_refund' && p.refundId) return `outgoing:${p.refundId}:confirmed`;
  return `payout:${p.id}`;
}

/** What a payout's confirmation posted, undone: its transaction, mined again after a reorg, reverted. */
export function payoutUndone(moved: Posting): Posting {
  return balanced({
    ...moved,
    postingId: `${moved.postingId}:undone`,
    lines: moved.lines.map((l) => ({ account: l.account, amount: -l.amount })),
  });
}
