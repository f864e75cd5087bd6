import { describe, expect, it } from 'vitest';
import { shortfallOf } from '../../src/domain/arrivals';

// Decisions §11 and §12: money that did not prove the payment, read from its pure decision
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
