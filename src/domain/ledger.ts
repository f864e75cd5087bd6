// Decisions §11 "Ledger": double entry, debits positive and credits negative, each posting summing to
// zero per (asset, network). Asset accounts (a deposit address, the treasury, gas spent) carry debit
// balances; what the platform owes or earned (a merchant's payable, commission revenue) credit
// balances. Pure: the database writes what these build, in the transaction of the state change.

export const NATIVE_ASSET = 'native';

export const ledgerAccount = {
  deposit: (address: string) => `deposit:${address}`,
  treasury: (address: string) => `treasury:${address}`,
  merchantPayable: (merchantId: string) => `merchant_payable:${merchantId}`,
  commissionRevenue: 'commission_revenue',
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

/** A completion proven on chain: the deposit address holds G, of which net is owed to the merchant and C is earned. */
export function depositCredited(input: { paymentId: string; merchantId: string; depositAddress: string; asset: string; network: string; txHash: string | null; grossMicro: bigint; merchantMicro: bigint; commissionMicro: bigint }): Posting {
  return balanced({
    postingId: `completion:${input.paymentId}`,
    asset: input.asset,
    network: input.network,
    paymentId: input.paymentId,
    txHash: input.txHash,
    lines: [
      { account: ledgerAccount.deposit(input.depositAddress), amount: input.grossMicro },
      { account: ledgerAccount.merchantPayable(input.merchantId), amount: -input.merchantMicro },
      { account: ledgerAccount.commissionRevenue, amount: -input.commissionMicro },
    ],
  });
}

export interface ConfirmedPayout {
  id: string;
  paymentId: string;
  merchantId: string;
  kind: 'merchant' | 'commission' | 'gas';
  asset: string;
  network: string;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
  txHash: string;
  feeWei: bigint;
}

/** A confirmed payout: the money it moved, and the gas its sender paid (in the native coin). */
export function payoutConfirmed(p: ConfirmedPayout, treasury: string): Posting[] {
  const debit =
    p.kind === 'merchant' ? ledgerAccount.merchantPayable(p.merchantId) : p.kind === 'commission' ? ledgerAccount.treasury(treasury) : ledgerAccount.deposit(p.toAddress);
  const credit = p.kind === 'gas' ? ledgerAccount.treasury(p.fromAddress) : ledgerAccount.deposit(p.fromAddress);
  const base = { network: p.network, paymentId: p.paymentId, txHash: p.txHash };
  const moved = balanced({ ...base, postingId: `payout:${p.id}`, asset: p.asset, lines: [{ account: debit, amount: p.amount }, { account: credit, amount: -p.amount }] });
  const fee = balanced({
    ...base,
    postingId: `fee:${p.id}`,
    asset: NATIVE_ASSET,
    lines: [
      { account: ledgerAccount.gasExpense, amount: p.feeWei },
      { account: credit, amount: -p.feeWei },
    ],
  });
  return [moved, fee].filter((posting) => posting.lines.length > 0);
}
