import { describe, expect, it } from 'vitest';
import {
  balanceAccount,
  holdReleased,
  outgoingFailed,
  outgoingPlanned,
  paymentCompleted,
  payoutAmount,
  payoutDue,
  refundDraw,
  releaseSplit,
  reserveAdjusted,
  reserveMove,
  sweepConfirmed,
} from '../../src/domain/balances';
import { ledgerAccount } from '../../src/domain/ledger';

const place = { network: 'polygon', asset: 'USDC' };
const sum = (lines: { amount: bigint }[]) => lines.reduce((s, l) => s + l.amount, 0n);

describe('completion', () => {
  it("books the merchant's share to pending and the commission to the platform in one balanced posting", () => {
    const p = paymentCompleted({
      ...place,
      paymentId: 'SV_1',
      merchantId: 'MER_1',
      depositAddress: '0xd',
      txHash: '0xt',
      grossMicro: 10_000_000n,
      merchantMicro: 9_900_000n,
      commissionMicro: 100_000n,
    });
    expect(sum(p.lines)).toBe(0n);
    expect(p.lines).toEqual([
      { account: ledgerAccount.deposit('0xd'), amount: 10_000_000n },
      { account: balanceAccount.pending('MER_1'), amount: -9_900_000n },
      { account: ledgerAccount.commissionRevenue, amount: -100_000n },
    ]);
  });

  it('refuses a split that does not add up to the gross', () => {
    expect(() =>
      paymentCompleted({
        ...place,
        paymentId: 'SV_1',
        merchantId: 'MER_1',
        depositAddress: '0xd',
        txHash: null,
        grossMicro: 10n,
        merchantMicro: 9n,
        commissionMicro: 2n,
      }),
    ).toThrow(/sums to/);
  });
});

describe('the reserve before a payout', () => {
  it('is filled from what is available, as far as it goes; its excess goes back when the target is lower', () => {
    expect(reserveMove({ availableMicro: 100n, reservedMicro: 30n, reserveTargetMicro: 50n })).toBe(20n);
    expect(reserveMove({ availableMicro: 5n, reservedMicro: 30n, reserveTargetMicro: 50n })).toBe(5n);
    expect(reserveMove({ availableMicro: -5n, reservedMicro: 30n, reserveTargetMicro: 50n })).toBe(0n);
    expect(reserveMove({ availableMicro: 100n, reservedMicro: 30n, reserveTargetMicro: 10n })).toBe(-20n);
    expect(reserveMove({ availableMicro: 0n, reservedMicro: 0n, reserveTargetMicro: 0n })).toBe(0n);
  });

  it('posts the move between the merchant’s own accounts only, or nothing', () => {
    const input = { ...place, adjustmentId: 'po_1', merchantId: 'MER_1', availableMicro: 100n, reservedMicro: 0n, reserveTargetMicro: 40n };
    expect(reserveAdjusted(input).moveMicro).toBe(40n);
    expect(reserveAdjusted(input).posting?.lines).toEqual([
      { account: 'merchant:MER_1:available', amount: 40n },
      { account: 'merchant:MER_1:reserved', amount: -40n },
    ]);
    expect(reserveAdjusted({ ...input, reservedMicro: 40n })).toEqual({ moveMicro: 0n, posting: null });
  });
});

describe('the end of a hold', () => {
  it('fills the reserve up to its target first, the rest is available', () => {
    expect(releaseSplit({ amountMicro: 100n, reservedMicro: 30n, reserveTargetMicro: 50n })).toEqual({ toReserved: 20n, toAvailable: 80n });
    expect(releaseSplit({ amountMicro: 10n, reservedMicro: 30n, reserveTargetMicro: 50n })).toEqual({ toReserved: 10n, toAvailable: 0n });
    expect(releaseSplit({ amountMicro: 10n, reservedMicro: 60n, reserveTargetMicro: 50n })).toEqual({ toReserved: 0n, toAvailable: 10n });
    expect(releaseSplit({ amountMicro: 10n, reservedMicro: 0n, reserveTargetMicro: 0n })).toEqual({ toReserved: 0n, toAvailable: 10n });
  });

  it('moves the share out of pending, nothing else', () => {
    const p = holdReleased({
      ...place,
      paymentId: 'SV_1',
      merchantId: 'MER_1',
      amountMicro: 100n,
      reservedMicro: 0n,
      reserveTargetMicro: 0n,
    });
    expect(p.lines).toEqual([
      { account: balanceAccount.pending('MER_1'), amount: 100n },
      { account: balanceAccount.available('MER_1'), amount: -100n },
    ]);
  });
});

describe('a sweep', () => {
  it('moves what each deposit sent to the treasury', () => {
    const p = sweepConfirmed({
      ...place,
      sweepId: 'sw_1',
      treasury: '0xT',
      txHash: '0xh',
      deposits: [
        { address: '0xa', amountMicro: 5n },
        { address: '0xb', amountMicro: 7n },
      ],
    });
    expect(p.lines).toEqual([
      { account: ledgerAccount.treasury('0xT'), amount: 12n },
      { account: ledgerAccount.deposit('0xa'), amount: -5n },
      { account: ledgerAccount.deposit('0xb'), amount: -7n },
    ]);
  });
});

describe('refunds of completed payments', () => {
  it('draw on available first, then reserved', () => {
    expect(refundDraw({ asset: 'USDC', availableMicro: 5n, reservedMicro: 10n, requestedMicro: 3n })).toEqual({
      ok: true,
      fromAvailable: 3n,
      fromReserved: 0n,
    });
    expect(refundDraw({ asset: 'USDC', availableMicro: 5n, reservedMicro: 10n, requestedMicro: 12n })).toEqual({
      ok: true,
      fromAvailable: 5n,
      fromReserved: 7n,
    });
  });

  it('are refused beyond the two, with what is available in words', () => {
    const draw = refundDraw({ asset: 'USDC', availableMicro: 9_800_000n, reservedMicro: 200_000n, requestedMicro: 10_000_001n });
    expect(draw).toEqual({
      ok: false,
      availableMicro: 10_000_000n,
      message:
        'The balance available for refunds is 10.00 USDC; the refund needs 10.000001 USDC. Top up your balance or wait for more payments.',
    });
  });

  it('never count a negative balance as money', () => {
    expect(refundDraw({ asset: 'USDC', availableMicro: -5n, reservedMicro: 3n, requestedMicro: 3n })).toEqual({
      ok: true,
      fromAvailable: 0n,
      fromReserved: 3n,
    });
  });

  it('go back where they were drawn from when they fail', () => {
    const draw = { fromAvailable: 4n, fromReserved: 6n };
    const planned = outgoingPlanned({ ...place, outgoingId: 'po_1', merchantId: 'MER_1', paymentId: 'SV_1', ...draw });
    const failed = outgoingFailed({ ...place, outgoingId: 'po_1', merchantId: 'MER_1', paymentId: 'SV_1', ...draw });
    const net = new Map<string, bigint>();
    for (const l of [...planned.lines, ...failed.lines]) net.set(l.account, (net.get(l.account) ?? 0n) + l.amount);
    expect([...net.values()].every((v) => v === 0n)).toBe(true);
  });
});

describe('payout schedules', () => {
  // 2026-11-25 is a Wednesday.
  const wednesdayNoon = new Date('2026-11-25T12:00:00Z');

  it('instant is always due, manual only when asked', () => {
    expect(payoutDue({ schedule: 'instant', lastPayoutAt: wednesdayNoon, now: wednesdayNoon })).toBe(true);
    expect(payoutDue({ schedule: 'manual', lastPayoutAt: null, now: wednesdayNoon })).toBe(false);
    expect(payoutDue({ schedule: 'manual', lastPayoutAt: null, now: wednesdayNoon, requested: true })).toBe(true);
  });

  it('daily once per UTC day', () => {
    expect(payoutDue({ schedule: 'daily', lastPayoutAt: null, now: wednesdayNoon })).toBe(true);
    expect(payoutDue({ schedule: 'daily', lastPayoutAt: new Date('2026-11-25T00:00:01Z'), now: wednesdayNoon })).toBe(false);
    expect(payoutDue({ schedule: 'daily', lastPayoutAt: new Date('2026-11-24T23:59:59Z'), now: wednesdayNoon })).toBe(true);
  });

  it('weekly once per ISO week, from Monday 00:00 UTC', () => {
    expect(payoutDue({ schedule: 'weekly', lastPayoutAt: new Date('2026-11-23T00:00:00Z'), now: wednesdayNoon })).toBe(false);
    expect(payoutDue({ schedule: 'weekly', lastPayoutAt: new Date('2026-11-22T23:59:59Z'), now: wednesdayNoon })).toBe(true);
    // On a Sunday the week started six days before.
    expect(payoutDue({ schedule: 'weekly', lastPayoutAt: new Date('2026-11-23T08:00:00Z'), now: new Date('2026-11-29T20:00:00Z') })).toBe(
      false,
    );
  });
});

describe('the amount of a payout', () => {
  it('is the whole available balance, above the minimum, when the treasury holds it', () => {
    expect(payoutAmount({ asset: 'USDC', availableMicro: 5_000_000n, minimumMicro: 1_000_000n, treasuryMicro: 9_000_000n })).toEqual({
      pay: true,
      amountMicro: 5_000_000n,
    });
    expect(payoutAmount({ asset: 'USDC', availableMicro: 0n, minimumMicro: 0n, treasuryMicro: 9n })).toEqual({
      pay: false,
      reason: 'nothing is available',
    });
    expect(payoutAmount({ asset: 'USDC', availableMicro: 500_000n, minimumMicro: 1_000_000n, treasuryMicro: 9_000_000n })).toEqual({
      pay: false,
      reason: '0.50 USDC is available, below the minimum of 1.00 USDC',
    });
    expect(payoutAmount({ asset: 'USDC', availableMicro: 9_800_000n, minimumMicro: 0n, treasuryMicro: 500_000n })).toEqual({
      pay: false,
      reason: 'the treasury holds 0.50 USDC, 9.80 needed',
    });
  });
});
