import { describe, expect, it } from 'vitest';
import { lateMoneyOf, sessionPhase, shortfallOf } from '../../src/domain/arrivals';
import { depositLogKey } from '../../src/domain/deposit-fact';
import { arrivalKeyOf, logArrivalKey, transferKeyOf } from '../../src/domain/exceptions';

// Money that did not prove the payment, read from its pure decision
// (src/domain/arrivals.ts): what the run records at the end, or when a claim's deadline passes.

const G = 25_000_000n;

describe('shortfallOf: underpaid', () => {
  it('credits short of G at the end are underpaid, for what was credited', () => {
    expect(shortfallOf({ at: 'expiry', expectedMicro: G, creditedMicro: G - 1n, claimedMicro: null })).toEqual({
      kind: 'underpaid',
      amountMicro: G - 1n,
    });
  });

  it('credits without a G (nobody chose how to pay) are underpaid at the end', () => {
    expect(shortfallOf({ at: 'expiry', expectedMicro: null, creditedMicro: 5n, claimedMicro: null })).toEqual({
      kind: 'underpaid',
      amountMicro: 5n,
    });
  });

  it('credits covering G are nothing to record (the completion owns them)', () => {
    expect(shortfallOf({ at: 'expiry', expectedMicro: G, creditedMicro: G, claimedMicro: null })).toBeNull();
    expect(shortfallOf({ at: 'expiry', expectedMicro: G, creditedMicro: G + 1n, claimedMicro: 7n })).toBeNull();
  });

  it('is decided only at the end: a claim deadline with short credits records nothing', () => {
    expect(shortfallOf({ at: 'claim', expectedMicro: G, creditedMicro: 1n, claimedMicro: G })).toBeNull();
  });

  it('underpaid wins over a claim when some money arrived', () => {
    expect(shortfallOf({ at: 'expiry', expectedMicro: G, creditedMicro: 1n, claimedMicro: G })).toEqual({
      kind: 'underpaid',
      amountMicro: 1n,
    });
  });
});

describe('shortfallOf: unverified', () => {
  it('a provider success with nothing credited is unverified for the claimed amount, at either deadline', () => {
    for (const at of ['claim', 'expiry'] as const)
      expect(shortfallOf({ at, expectedMicro: G, creditedMicro: 0n, claimedMicro: G })).toEqual({ kind: 'unverified', amountMicro: G });
  });

  it('a claim of no money is nothing to verify', () => {
    expect(shortfallOf({ at: 'claim', expectedMicro: G, creditedMicro: 0n, claimedMicro: 0n })).toBeNull();
    expect(shortfallOf({ at: 'expiry', expectedMicro: G, creditedMicro: 0n, claimedMicro: -1n })).toBeNull();
  });

  it('no credit and no claim is nothing to record', () => {
    expect(shortfallOf({ at: 'expiry', expectedMicro: G, creditedMicro: 0n, claimedMicro: null })).toBeNull();
    expect(shortfallOf({ at: 'expiry', expectedMicro: null, creditedMicro: 0n, claimedMicro: null })).toBeNull();
  });

  it('a claim is not unverified once some money was credited', () => {
    expect(shortfallOf({ at: 'claim', expectedMicro: G, creditedMicro: 1n, claimedMicro: G })).toBeNull();
  });
});

describe('lateMoneyOf: a provider fact after the payment ended', () => {
  const fact = (over: Partial<Parameters<typeof lateMoneyOf>[0]> = {}) =>
    lateMoneyOf({
      succeeded: true,
      providerPaymentId: 'pp_2',
      destinationAmount: '24.750000',
      paid: false,
      paidBy: null,
      linkPaidElsewhere: false,
      verification: 'provider',
      ...over,
    });

  it('a success after an unpaid end is late money, for the amount the provider reports', () => {
    expect(fact()).toEqual({ kind: 'late', amountMicro: 24_750_000n });
  });

  it('a success of another provider payment than the one that paid is a duplicate (a second rail or tab)', () => {
    expect(fact({ paid: true, paidBy: 'pp_1' })).toEqual({ kind: 'duplicate', amountMicro: 24_750_000n });
  });

  it('any success once another session paid the payment link is a duplicate (a second payment for the link)', () => {
    expect(fact({ linkPaidElsewhere: true })).toEqual({ kind: 'duplicate', amountMicro: 24_750_000n });
    expect(fact({ linkPaidElsewhere: true, verification: 'chain' })).toEqual({ kind: 'unverified', amountMicro: 24_750_000n });
  });

  it('a success of the provider payment that paid is the provider repeating itself: nothing', () => {
    expect(fact({ paid: true, paidBy: 'pp_2' })).toBeNull();
  });

  it('a paid payment with no provider payment of record (paid on chain) takes no provider success as money', () => {
    expect(fact({ paid: true, paidBy: null })).toBeNull();
  });

  it('on chain the provider’s word is a claim: unverified, late or duplicate alike', () => {
    expect(fact({ verification: 'chain' })).toEqual({ kind: 'unverified', amountMicro: 24_750_000n });
    expect(fact({ verification: 'chain', paid: true, paidBy: 'pp_1' })).toEqual({ kind: 'unverified', amountMicro: 24_750_000n });
  });

  it('anything but a success is no money', () => {
    expect(fact({ succeeded: false })).toBeNull();
    expect(fact({ succeeded: false, paid: true, paidBy: 'pp_1' })).toBeNull();
  });

  it('a success without a positive amount says no money moved', () => {
    for (const destinationAmount of ['0.000000', '-24.750000', undefined, null, '', 'lots', '1.0000001'])
      expect(fact({ destinationAmount }), String(destinationAmount)).toBeNull();
  });
});

describe('sessionPhase: where a checkout session stands for money that arrives', () => {
  const phase = (over: Partial<Parameters<typeof sessionPhase>[0]> = {}) =>
    sessionPhase({ id: 'SV_a', status: 'pending', cancelReason: null, merchantTakesMoney: true, linkPaidBy: null, ...over });

  it('open while pending or processing for an approved merchant; ended otherwise', () => {
    expect(phase()).toBe('open');
    expect(phase({ status: 'processing' })).toBe('open');
    expect(phase({ merchantTakesMoney: false })).toBe('ended');
    expect(phase({ status: 'expired' })).toBe('ended');
    expect(phase({ status: 'canceled', cancelReason: 'merchant' })).toBe('ended');
  });

  it('paid once completed, and once another session paid its link, however it ended or before it did', () => {
    expect(phase({ status: 'completed', linkPaidBy: 'SV_a' })).toBe('paid');
    expect(phase({ status: 'canceled', cancelReason: 'link_paid', linkPaidBy: 'SV_b' })).toBe('paid');
    expect(phase({ status: 'expired', linkPaidBy: 'SV_b' })).toBe('paid');
    expect(phase({ status: 'pending', linkPaidBy: 'SV_b' })).toBe('paid');
  });
});

describe('a log’s keys', () => {
  const log = { network: 'Polygon', transactionHash: '0xABC', logIndex: 3 };

  it('its arrival key is its identity under the tx: prefix, under the transaction’s key a provider’s word uses', () => {
    expect(depositLogKey(log)).toBe('Polygon:0xabc:3');
    expect(logArrivalKey(log)).toBe('tx:polygon:0xabc:3');
    expect(logArrivalKey(log).startsWith(`${arrivalKeyOf({ network: 'polygon', transactionHash: '0xabc' })}:`)).toBe(true);
    expect(transferKeyOf(logArrivalKey(log))).toBe(arrivalKeyOf({ network: log.network, transactionHash: log.transactionHash }));
  });
});
