import { describe, expect, it } from 'vitest';
import type { DepositFact } from '../../src/domain/deposit-fact';
import type { ProviderFact } from '../../src/domain/provider-fact';
import {
  decideOrder,
  initialOrder,
  nextOrderDeadline,
  type OrderEffect,
  type OrderEvent,
  type OrderState,
} from '../../src/domain/simple-order';

// One simple-API order, read from its pure decisions
// (src/domain/simple-order.ts): no database, no Temporal.

const HOUR = 3_600_000;
const T0 = 1_000_000;
const settings = { expiresAtMs: T0 + HOUR, proofTimeoutMs: HOUR / 2, processingTimeoutMs: 24 * HOUR };
const chainOrder = (): OrderState => initialOrder({ chainVerified: true, ...settings });
const providerOrder = (): OrderState => initialOrder({ chainVerified: false, ...settings });

const fact = (type: ProviderFact['type'], eventId = `evt_${type}`): ProviderFact => ({
  eventId,
  type,
  providerPaymentId: 'pp_1',
  destinationAmount: '40.000000',
  occurredAt: '2026-11-26T00:00:00Z',
});
const provider = (type: ProviderFact['type'], nowMs = T0): OrderEvent => ({ kind: 'provider', fact: fact(type), nowMs });
const log = (kind: DepositFact['kind'] = 'credited'): DepositFact => ({
  kind,
  network: 'polygon',
  transactionHash: `0x${'a'.repeat(64)}`,
  logIndex: 0,
  asset: 'USDC',
  token: '0x0000000000000000000000000000000000000001',
  from: '0x0000000000000000000000000000000000000002',
  to: '0x0000000000000000000000000000000000000003',
  amountMicro: '40000000',
  blockNumber: '1',
  blockHash: `0x${'1'.repeat(64)}`,
});
const credited = (creditedMicro: bigint, held = true): OrderEvent => ({
  kind: 'credited',
  credit: { held, creditedMicro: creditedMicro.toString(), expectedMicro: '40000000' },
});
const kinds = (effects: OrderEffect[]) => effects.map((e) => e.kind);

function run(state: OrderState, ...events: OrderEvent[]) {
  const effects: OrderEffect[] = [];
  for (const event of events) {
    const d = decideOrder(state, event);
    state = d.state;
    effects.push(...d.effects);
  }
  return { state, effects };
}

describe('a provider-verified simple order', () => {
  it('goes pending → processing → settled on the provider’s word, and announces transaction.settled once', () => {
    const { state, effects } = run(providerOrder(), provider('processing'), provider('succeeded'));
    expect(state.status).toBe('settled');
    expect(effects).toEqual([
      { kind: 'move', move: { to: 'processing', fact: fact('processing') } },
      { kind: 'move', move: { to: 'settled', fact: fact('succeeded') } },
      { kind: 'announceSettled' },
    ]);
  });

  it('fails on a decline and records nothing else', () => {
    const { state, effects } = run(providerOrder(), provider('failed'));
    expect(state.status).toBe('failed');
    expect(kinds(effects)).toEqual(['move']);
  });

  it('expires at its expiry while pending, not a moment before', () => {
    expect(run(providerOrder(), { kind: 'deadline', nowMs: T0 + HOUR - 1 }).effects).toEqual([]);
    const { state, effects } = run(providerOrder(), { kind: 'deadline', nowMs: T0 + HOUR });
    expect(state.status).toBe('expired');
    expect(effects).toEqual([{ kind: 'move', move: { to: 'expired' } }]);
  });

  it('fails a processing order once the provider has been quiet for the processing timeout, counted from its last word', () => {
    const processing = run(providerOrder(), provider('processing', T0)).state;
    expect(nextOrderDeadline(processing)).toBe(T0 + 24 * HOUR);
    const later = run(processing, provider('processing', T0 + HOUR)).state;
    expect(nextOrderDeadline(later)).toBe(T0 + 25 * HOUR);
    const { state, effects } = run(later, { kind: 'deadline', nowMs: T0 + 25 * HOUR });
    expect(state.status).toBe('failed');
    expect(effects).toMatchObject([{ kind: 'move', move: { to: 'failed', fact: { type: 'failed', failureReason: 'provider_timeout' } } }]);
  });

  it('ignores deposit logs: its network has no verifier', () => {
    expect(run(providerOrder(), { kind: 'deposit', fact: log() }).effects).toEqual([]);
  });

  it('flags every provider word after the end for an operator (late money)', () => {
    const settled = run(providerOrder(), provider('succeeded')).state;
    const { effects } = run(settled, { kind: 'provider', fact: fact('succeeded', 'evt_again'), nowMs: T0 });
    expect(effects).toEqual([{ kind: 'recordLateFact', fact: fact('succeeded', 'evt_again'), status: 'settled' }]);
  });
});

describe('a chain-verified simple order', () => {
  it('takes the provider’s success as a claim: processing, with a proof deadline, never settled by it', () => {
    const { state, effects } = run(chainOrder(), provider('succeeded', T0));
    expect(state.status).toBe('processing');
    expect(state.claim?.providerPaymentId).toBe('pp_1');
    expect(nextOrderDeadline(state)).toBe(T0 + HOUR / 2);
    expect(kinds(effects)).toEqual(['move']);
  });

  it('settles only once the credits cover G, from the chain', () => {
    const pending = chainOrder();
    expect(kinds(run(pending, { kind: 'deposit', fact: log() }).effects)).toEqual(['credit']);
    expect(run(pending, credited(39_999_999n)).effects).toEqual([]);
    expect(run(pending, credited(40_000_000n, false)).effects).toEqual([]);
    const { state, effects } = run(pending, credited(40_000_000n));
    expect(effects).toEqual([{ kind: 'settleFromChain', providerPaymentId: null }]);
    expect(state.status).toBe('pending');
    expect(run(state, { kind: 'chainSettled', settled: false }).state.status).toBe('pending');
    expect(run(state, { kind: 'chainSettled', settled: true }).state.status).toBe('settled');
  });

  it('names the claimed provider payment when the chain settles a claimed order', () => {
    const claimed = run(chainOrder(), provider('succeeded')).state;
    expect(run(claimed, credited(40_000_000n)).effects).toEqual([{ kind: 'settleFromChain', providerPaymentId: 'pp_1' }]);
  });

  it('records a claim nothing proved once, at its deadline, and keeps waiting', () => {
    const claimed = run(chainOrder(), provider('succeeded', T0)).state;
    const { state, effects } = run(claimed, { kind: 'deadline', nowMs: T0 + HOUR / 2 });
    expect(effects).toEqual([{ kind: 'recordShortfall', claim: claimed.claim, at: 'claim' }]);
    expect(state.status).toBe('processing');
    expect(state.claimDueMs).toBeNull();
  });

  it('fails an unproven claim as unverified once the provider stays quiet, recording the credits short of G', () => {
    const claimed = run(chainOrder(), provider('succeeded', T0), { kind: 'deadline', nowMs: T0 + HOUR / 2 }).state;
    const { state, effects } = run(claimed, { kind: 'deadline', nowMs: T0 + 24 * HOUR });
    expect(state.status).toBe('failed');
    expect(effects).toMatchObject([
      { kind: 'recordShortfall', at: 'expiry' },
      { kind: 'move', move: { to: 'failed', fact: { failureReason: 'unverified' } } },
    ]);
  });

  it('records credits short of G as underpaid when the order expires or the provider declines', () => {
    expect(kinds(run(chainOrder(), { kind: 'deadline', nowMs: T0 + HOUR }).effects)).toEqual(['recordShortfall', 'move']);
    expect(kinds(run(chainOrder(), provider('failed')).effects)).toEqual(['recordShortfall', 'move']);
  });

  it('treats money after the end as late, and still takes removals back', () => {
    const expired = run(chainOrder(), { kind: 'deadline', nowMs: T0 + HOUR }).state;
    expect(run(expired, { kind: 'deposit', fact: log() }).effects).toEqual([{ kind: 'recordLateDeposit', fact: log() }]);
    expect(run(expired, { kind: 'deposit', fact: log('removed') }).effects).toEqual([{ kind: 'uncredit', fact: log('removed') }]);
    expect(run(expired, credited(40_000_000n)).effects).toEqual([]);
  });
});
