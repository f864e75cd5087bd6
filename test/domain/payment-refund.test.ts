import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depositCredited, ledgerAccount, payoutConfirmed, type Posting } from '../../src/domain/ledger';
import { commissionSplit } from '../../src/domain/money';
import {
  checkRefundAmount,
  checkRefundDebt,
  completedPaymentRefunded,
  REFUND_DEBT_WINDOW_MS,
  refundableMicro,
  refundDebtRepaid,
  withholdFromPayout,
} from '../../src/domain/payment-refund';

// Refunds of completed payments (issue 29 item 3): the rule played against random histories of one
// merchant in one asset and network: completions, refunds, payouts (which repay the debt), time passing.

const MERCHANT = 'mer_1';
const TREASURY = '0x000000000000000000000000000000000000dEaD';
const ASSET = 'USDC';
const NETWORK = 'anvil';
const DAY = 24 * 3600 * 1000;

type Step =
  | { kind: 'complete'; grossMicro: bigint; bps: number }
  | { kind: 'payOut'; pick: number }
  | { kind: 'refund'; pick: number; requestedMicro: bigint }
  | { kind: 'wait'; days: number };

interface Payment {
  id: string;
  deposit: string;
  gross: bigint;
  net: bigint;
  commission: bigint;
  refunded: bigint;
  paidOut: boolean;
}

/** The model: what the platform did, and the ledger it posted. */
class Books {
  now = 0;
  payments: Payment[] = [];
  postings: Posting[] = [];
  /** Credited to the merchant (net of commission), sent to them, sent to customers, withheld. */
  credited = 0n;
  paid = 0n;
  refunds = 0n;
  withheld = 0n;
  debt = 0n;
  /** The merchant's payouts, when and how much reached them (the 30-day cover). */
  payoutLog: { at: number; amount: bigint }[] = [];
  refused = 0;

  post(p: Posting) {
    expect(p.lines.reduce((s, l) => s + l.amount, 0n)).toBe(0n);
    this.postings.push(p);
  }

  balance(account: string): bigint {
    return this.postings.flatMap((p) => p.lines).reduce((s, l) => (l.account === account ? s + l.amount : s), 0n);
  }

  unpaid(): bigint {
    return this.payments.filter((p) => !p.paidOut).reduce((s, p) => s + p.net, 0n);
  }

  paidRecently(): bigint {
    return this.payoutLog.filter((e) => this.now - e.at < REFUND_DEBT_WINDOW_MS).reduce((s, e) => s + e.amount, 0n);
  }

  apply(step: Step) {
    switch (step.kind) {
      case 'complete': {
        const { commission, merchant } = commissionSplit(step.grossMicro, step.bps);
        const id = `SV_${this.payments.length}`;
        const p: Payment = {
          id,
          deposit: `0xdep${this.payments.length}`,
          gross: step.grossMicro,
          net: merchant,
          commission,
          refunded: 0n,
          paidOut: false,
        };
        this.payments.push(p);
        this.credited += merchant;
        this.post(
          depositCredited({
            paymentId: id,
            merchantId: MERCHANT,
            depositAddress: p.deposit,
            asset: ASSET,
            network: NETWORK,
            txHash: null,
            grossMicro: p.gross,
            merchantMicro: merchant,
            commissionMicro: commission,
          }),
        );
        return;
      }
      case 'payOut': {
        const open = this.payments.filter((p) => !p.paidOut);
        if (open.length === 0) return;
        const p = open[step.pick % open.length]!;
        p.paidOut = true;
        const { sendMicro, withheldMicro } = withholdFromPayout({ netMicro: p.net, debtMicro: this.debt });
        expect(sendMicro + withheldMicro).toBe(p.net);
        const base = {
          paymentId: p.id,
          merchantId: MERCHANT,
          asset: ASSET,
          network: NETWORK,
          fromAddress: p.deposit,
          txHash: '0x',
          feeWei: 0n,
        };
        if (sendMicro > 0n)
          this.postings.push(
            ...payoutConfirmed({ ...base, id: `po_m${p.id}`, kind: 'merchant', toAddress: '0xmerchant', amount: sendMicro }, TREASURY),
          );
        if (p.commission > 0n)
          this.postings.push(
            ...payoutConfirmed({ ...base, id: `po_c${p.id}`, kind: 'commission', toAddress: TREASURY, amount: p.commission }, TREASURY),
          );
        if (withheldMicro > 0n)
          this.post(
            refundDebtRepaid({
              payoutId: `po_w${p.id}`,
              paymentId: p.id,
              merchantId: MERCHANT,
              depositAddress: p.deposit,
              treasury: TREASURY,
              asset: ASSET,
              network: NETWORK,
              txHash: '0x',
              amountMicro: withheldMicro,
            }),
          );
        this.paid += sendMicro;
        this.withheld += withheldMicro;
        this.debt -= withheldMicro;
        if (sendMicro > 0n) this.payoutLog.push({ at: this.now, amount: sendMicro });
        return;
      }
      case 'refund': {
        if (this.payments.length === 0) return;
        const p = this.payments[step.pick % this.payments.length]!;
        const amount = checkRefundAmount({ grossMicro: p.gross, refundedMicro: p.refunded, requestedMicro: step.requestedMicro });
        const wanted = step.requestedMicro > 0n && step.requestedMicro <= p.gross - p.refunded;
        expect(amount.ok).toBe(wanted);
        if (!amount.ok) {
          this.refused++;
          return;
        }
        const debt = checkRefundDebt({
          debtMicro: this.debt,
          requestedMicro: amount.amountMicro,
          paidOutRecentlyMicro: this.paidRecently(),
          unpaidMicro: this.unpaid(),
        });
        if (!debt.ok) {
          this.refused++;
          return;
        }
        this.post(
          completedPaymentRefunded({
            refundId: `rf_${this.postings.length}`,
            paymentId: p.id,
            merchantId: MERCHANT,
            treasury: TREASURY,
            asset: ASSET,
            network: NETWORK,
            txHash: '0x',
            amountMicro: amount.amountMicro,
          }),
        );
        p.refunded += amount.amountMicro;
        this.refunds += amount.amountMicro;
        this.debt = debt.debtAfterMicro;
        return;
      }
      case 'wait':
        this.now += step.days * DAY;
        return;
    }
  }

  /** What must hold after every step. */
  check() {
    // No payment is refunded beyond what it was credited.
    for (const p of this.payments) {
      expect(p.refunded).toBeLessThanOrEqual(p.gross);
      expect(refundableMicro({ grossMicro: p.gross, refundedMicro: p.refunded })).toBe(p.gross - p.refunded);
    }
    // The ledger sums to zero, and says what the model says.
    const all = this.postings.flatMap((p) => p.lines).reduce((s, l) => s + l.amount, 0n);
    expect(all).toBe(0n);
    expect(this.debt).toBeGreaterThanOrEqual(0n);
    expect(this.balance(ledgerAccount.merchantDebt(MERCHANT))).toBe(this.debt);
    expect(this.balance(ledgerAccount.merchantPayable(MERCHANT))).toBe(-this.unpaid());
    const commissions = this.payments.filter((p) => p.paidOut).reduce((s, p) => s + p.commission, 0n);
    expect(this.balance(ledgerAccount.treasury(TREASURY))).toBe(commissions + this.withheld - this.refunds);
    for (const p of this.payments) expect(this.balance(ledgerAccount.deposit(p.deposit))).toBe(p.paidOut ? 0n : p.gross);
    // Paid out, to the merchant and to customers together, never more than credited beyond the
    // outstanding debt; and that debt is exactly what is still to be withheld.
    expect(this.paid + this.refunds).toBe(this.credited - this.unpaid() + this.debt);
  }
}

const micro = (max: number) => fc.bigInt({ min: 0n, max: BigInt(max) * 1_000_000n });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('complete' as const), grossMicro: micro(500).map((g) => g + 1n), bps: fc.integer({ min: 0, max: 1_000 }) }),
  fc.record({ kind: fc.constant('payOut' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('refund' as const),
    pick: fc.nat(),
    requestedMicro: fc.oneof(micro(600), fc.constant(0n), fc.bigInt({ min: -5n, max: -1n })),
  }),
  fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 0, max: 40 }) }),
);

function play(steps: Step[]): Books {
  const books = new Books();
  for (const s of steps) {
    books.apply(s);
    books.check();
  }
  return books;
}

/** Then enough new business to repay the debt, all paid out: nothing is owed, nothing was paid beyond credits. */
function settleUp(books: Books) {
  // Whatever is still to pay out repays first; then new business, each paid out, until nothing is owed.
  while (books.payments.some((p) => !p.paidOut)) {
    books.apply({ kind: 'payOut', pick: 0 });
    books.check();
  }
  for (let n = 0; books.debt > 0n && n < 5; n++) {
    books.apply({ kind: 'complete', grossMicro: books.debt * 2n + 1n, bps: 100 });
    books.apply({ kind: 'payOut', pick: 0 });
    books.check();
  }
  expect(books.debt).toBe(0n);
  expect(books.paid + books.refunds).toBeLessThanOrEqual(books.credited);
}

describe('refunds of completed payments (issue 29 item 3)', () => {
  it('bounds the amount: 0 < R ≤ G − refunded, with a message naming the rest', () => {
    const g = 10_000_000n;
    expect(checkRefundAmount({ grossMicro: g, refundedMicro: 0n, requestedMicro: g })).toEqual({ ok: true, amountMicro: g });
    expect(checkRefundAmount({ grossMicro: g, refundedMicro: 4_000_000n, requestedMicro: 6_000_000n }).ok).toBe(true);
    const over = checkRefundAmount({ grossMicro: g, refundedMicro: 4_000_000n, requestedMicro: 6_000_001n });
    expect(over).toEqual({ ok: false, message: expect.stringContaining('At most 6.00') });
    expect(checkRefundAmount({ grossMicro: g, refundedMicro: 0n, requestedMicro: 0n }).ok).toBe(false);
    expect(checkRefundAmount({ grossMicro: g, refundedMicro: 0n, requestedMicro: -1n }).ok).toBe(false);
    expect(checkRefundAmount({ grossMicro: g, refundedMicro: g, requestedMicro: 1n })).toEqual({
      ok: false,
      message: 'This payment has been refunded in full.',
    });
  });

  it('bounds the debt by the last 30 days of payouts and the credits still to be paid out', () => {
    expect(checkRefundDebt({ debtMicro: 2n, requestedMicro: 3n, paidOutRecentlyMicro: 4n, unpaidMicro: 1n })).toEqual({
      ok: true,
      debtAfterMicro: 5n,
    });
    expect(checkRefundDebt({ debtMicro: 2n, requestedMicro: 4n, paidOutRecentlyMicro: 4n, unpaidMicro: 1n }).ok).toBe(false);
  });

  it('withholds the debt from a payout, never more than the payout', () => {
    expect(withholdFromPayout({ netMicro: 10n, debtMicro: 3n })).toEqual({ sendMicro: 7n, withheldMicro: 3n });
    expect(withholdFromPayout({ netMicro: 10n, debtMicro: 30n })).toEqual({ sendMicro: 0n, withheldMicro: 10n });
    expect(withholdFromPayout({ netMicro: 10n, debtMicro: 0n })).toEqual({ sendMicro: 10n, withheldMicro: 0n });
  });

  it('keeps refunds within credits, payouts and refunds within credits over time, and the ledger balanced', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        settleUp(play(steps));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a refund of an old payment once the merchant has stopped being paid out (30 days)', () => {
    const books = play([
      { kind: 'complete', grossMicro: 100_000_000n, bps: 100 },
      { kind: 'payOut', pick: 0 },
      { kind: 'refund', pick: 0, requestedMicro: 30_000_000n },
      { kind: 'wait', days: 31 },
      { kind: 'refund', pick: 0, requestedMicro: 30_000_000n },
    ]);
    expect(books.refunds).toBe(30_000_000n);
    expect(books.refused).toBe(1);
    settleUp(books);
  });
});
