import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  creditCovers,
  decide,
  initialSession,
  type ChainCompletionReport,
  nextDeadline,
  type SessionEffect,
  type SessionEvent,
  type SessionState,
} from '../../src/domain/checkout-session';
import type { DepositFact } from '../../src/domain/deposit-fact';
import { isTerminal } from '../../src/domain/payment-status';
import type { ProviderFact } from '../../src/domain/provider-fact';

// One checkout session, read from its pure decisions
// (src/domain/checkout-session.ts): no database, no Temporal.

const HOUR = 3_600_000;
const T0 = 1_000_000;
const chainSession = (): SessionState => initialSession({ chainVerified: true, expiresAtMs: T0 + HOUR, proofTimeoutMs: HOUR / 2 });
const providerSession = (): SessionState => initialSession({ chainVerified: false, expiresAtMs: T0 + HOUR, proofTimeoutMs: HOUR / 2 });

const fact = (type: ProviderFact['type'], eventId = `evt_${type}`): ProviderFact => ({
  eventId,
  type,
  providerPaymentId: 'pp_1',
  destinationAmount: '25.000000',
  occurredAt: '2026-11-26T00:00:00Z',
});
const log = (n: number, kind: DepositFact['kind'] = 'credited'): DepositFact => ({
  kind,
  network: 'polygon',
  transactionHash: `0x${n.toString(16).padStart(64, '0')}`,
  logIndex: 0,
  asset: 'USDC',
  token: '0x0000000000000000000000000000000000000001',
  from: '0x0000000000000000000000000000000000000002',
  to: '0x0000000000000000000000000000000000000003',
  amountMicro: '25000000',
  blockNumber: '1',
  blockHash: `0x${'1'.repeat(64)}`,
});
const credited = (creditedMicro: bigint, exceptionId: string | null = null, completion?: ChainCompletionReport | null): SessionEvent => ({
  kind: 'credited',
  credit: { held: true, creditedMicro: creditedMicro.toString(), expectedMicro: '25000000', exceptionId },
  ...(completion !== undefined ? { completion } : {}),
});
/** A credit that covers G, with what the completion it asked for did. */
const covering = (completion: ChainCompletionReport | null) => credited(25_000_000n, null, completion);
const kinds = (effects: SessionEffect[]) => effects.map((e) => e.kind);

/** Runs events in order, as the workflow's loop does (reports given by the test). */
function run(state: SessionState, ...events: SessionEvent[]) {
  const effects: SessionEffect[] = [];
  for (const event of events) {
    const d = decide(state, event);
    state = d.state;
    effects.push(...d.effects);
  }
  return { state, effects };
}

describe('a chain-verified checkout session', () => {
  it('takes a provider success as a claim: processing, and a window for its transfer, never a completion', () => {
    const { state, effects } = run(chainSession(), { kind: 'provider', fact: fact('succeeded'), nowMs: T0 });
    expect(state.status).toBe('processing');
    expect(kinds(effects)).toEqual(['move']);
    expect(state.claim).toMatchObject({ eventId: 'evt_succeeded', providerPaymentId: 'pp_1' });
    expect(nextDeadline(state)).toBe(T0 + HOUR / 2);
  });

  it('credits a log with the completion it would prove, and completes only on the completion’s report', () => {
    const s = run(chainSession(), { kind: 'deposit', fact: log(1) });
    expect(s.effects).toEqual([{ kind: 'credit', fact: log(1), providerPaymentId: null }]);
    const short = decide(s.state, credited(24_999_999n));
    expect(short.effects).toEqual([]);
    expect(short.state.status).toBe('pending');
    // A report short of G that claims a completion is not one this session asked for.
    expect(decide(short.state, credited(24_999_999n, null, { paidLinkId: null })).state.status).toBe('pending');
    const done = decide(short.state, covering({ paidLinkId: 'plink_1', overpaidExceptionId: 'exc_over', provider: null }));
    expect(done.state.status).toBe('completed');
    expect(done.effects).toEqual([
      { kind: 'markCompleted', provider: null },
      { kind: 'announceException', exceptionId: 'exc_over' },
      { kind: 'linkPaid', linkId: 'plink_1' },
    ]);
  });

  it('stays open when the database declined the completion (a removal won) or the link was paid by another session (a duplicate)', () => {
    const open = chainSession();
    const declined = decide(open, covering(null));
    expect(declined.effects).toEqual([]);
    expect(declined.state.status).toBe('pending');
    expect(declined.state.creditedMicro).toBe(25_000_000n);
    const duplicate = decide(open, covering({ paidLinkId: null, duplicateExceptionId: 'exc_dup' }));
    expect(duplicate.state.status).toBe('pending');
    expect(duplicate.effects).toEqual([{ kind: 'announceException', exceptionId: 'exc_dup' }]);
  });

  it('announces another token’s arrival and credits nothing towards G', () => {
    const { effects, state } = run(chainSession(), credited(0n, 'exc_wrong'));
    expect(effects).toEqual([{ kind: 'announceException', exceptionId: 'exc_wrong' }]);
    expect(state.creditedMicro).toBe(0n);
  });

  it('records credits short of G as underpaid before a cancel, a provider failure under way or the expiry ends the session', () => {
    const partial = run(chainSession(), credited(10_000_000n)).state;
    const underWay = run(partial, { kind: 'provider', fact: fact('processing'), nowMs: T0 }).state;
    for (const [from, event, status] of [
      [partial, { kind: 'cancel' }, 'canceled'],
      [underWay, { kind: 'provider', fact: fact('failed'), nowMs: T0 }, 'failed'],
      [partial, { kind: 'deadline', nowMs: T0 + HOUR }, 'expired'],
      // Declined, then part paid from a wallet: the money decides how it ended (underpaid, expired).
      [run(partial, { kind: 'provider', fact: fact('failed'), nowMs: T0 }).state, { kind: 'deadline', nowMs: T0 + HOUR }, 'expired'],
    ] as const) {
      const ended = decide(from, event);
      expect(ended.state.status).toBe(status);
      expect(kinds(ended.effects)).toEqual(['recordShortfall', 'move']);
      expect(ended.effects[0]).toEqual({ kind: 'recordShortfall', claim: null, at: 'expiry' });
    }
    // Nothing credited: a cancel is only a cancel.
    expect(kinds(decide(chainSession(), { kind: 'cancel' }).effects)).toEqual(['move']);
  });

  it('records a claim nothing proved when its window ends, once, and expires the session at its end', () => {
    const claimed = run(chainSession(), { kind: 'provider', fact: fact('succeeded'), nowMs: T0 }).state;
    const due = decide(claimed, { kind: 'deadline', nowMs: T0 + HOUR / 2 });
    expect(due.effects).toEqual([{ kind: 'recordShortfall', claim: claimed.claim, at: 'claim' }]);
    expect(due.state.status).toBe('processing');
    expect(nextDeadline(due.state)).toBe(T0 + HOUR);
    const expired = decide(due.state, { kind: 'deadline', nowMs: T0 + HOUR });
    expect(expired.state.status).toBe('expired');
    expect(kinds(expired.effects)).toEqual(['recordShortfall', 'move']);
  });

  it('makes money after the end an exception: a log is recorded late, a provider success is counted and recorded', () => {
    const ended = run(chainSession(), { kind: 'cancel' }).state;
    expect(decide(ended, { kind: 'deposit', fact: log(2) }).effects).toEqual([{ kind: 'recordLateDeposit', fact: log(2) }]);
    const late = decide(ended, { kind: 'provider', fact: fact('succeeded'), nowMs: T0 });
    expect(late.effects).toEqual([{ kind: 'recordLateSuccess', fact: fact('succeeded'), status: 'canceled' }]);
    expect(late.state.lateEvents).toBe(1);
    // A cancel or an expire after the end changes nothing.
    expect(decide(ended, { kind: 'cancel' }).effects).toEqual([]);
    expect(decide(ended, { kind: 'expire' }).effects).toEqual([]);
  });
});

describe('a decline is not the end', () => {
  for (const [name, session] of [
    ['chain-verified', chainSession],
    ['provider-verified', providerSession],
  ] as const) {
    it(`keeps a ${name} session open after a decline, for another attempt or the wallet, and ends it failed at the expiry`, () => {
      const declined = run(session(), { kind: 'provider', fact: fact('failed'), nowMs: T0 });
      expect(declined.state.status).toBe('pending');
      expect(declined.effects).toEqual([]);
      expect(declined.state.declined).toEqual(fact('failed'));
      // Nothing after it: the decline is how the session ended, announced at the expiry (payment.failed).
      const ended = decide(declined.state, { kind: 'deadline', nowMs: T0 + HOUR });
      expect(ended.state.status).toBe('failed');
      expect(ended.effects).toEqual([{ kind: 'move', move: { kind: 'failed', fact: fact('failed') } }]);
      // Before the expiry the customer may still cancel, or the merchant expire it.
      expect(decide(declined.state, { kind: 'cancel' }).state.status).toBe('canceled');
      expect(decide(declined.state, { kind: 'expire' }).state.status).toBe('expired');
    });
  }

  it('forgets the decline when a new attempt gets under way, and completes as any session does', () => {
    const declined = run(chainSession(), { kind: 'provider', fact: fact('failed'), nowMs: T0 }).state;
    const retried = run(declined, { kind: 'provider', fact: fact('processing', 'evt_retry'), nowMs: T0 + 1 });
    expect(retried.state.status).toBe('processing');
    expect(retried.state.declined).toBeNull();
    expect(decide(retried.state, { kind: 'deadline', nowMs: T0 + HOUR }).state.status).toBe('expired');
    // Paid from the wallet after the decline: the chain completes it, naming the declined attempt's payment.
    expect(run(declined, { kind: 'deposit', fact: log(1) }).effects).toEqual([{ kind: 'credit', fact: log(1), providerPaymentId: 'pp_1' }]);
    expect(run(declined, covering({ paidLinkId: null })).state.status).toBe('completed');
    const provider = run(
      providerSession(),
      { kind: 'provider', fact: fact('failed'), nowMs: T0 },
      { kind: 'provider', fact: fact('succeeded'), nowMs: T0 },
    );
    expect(provider.state.declined).toBeNull();
    expect(provider.effects).toEqual([{ kind: 'completeFromProvider', fact: fact('succeeded') }]);
  });

  it('ends a session failed when the provider fails it once under way (the money moved, or was meant to)', () => {
    const ended = run(
      providerSession(),
      { kind: 'provider', fact: fact('processing'), nowMs: T0 },
      { kind: 'provider', fact: fact('failed'), nowMs: T0 },
    );
    expect(ended.state.status).toBe('failed');
  });
});

describe('a provider-verified session (a network without a verifier)', () => {
  it('completes on the provider’s word, and announces a duplicate of a paid link instead', () => {
    const asked = run(providerSession(), { kind: 'provider', fact: fact('succeeded'), nowMs: T0 });
    expect(asked.effects).toEqual([{ kind: 'completeFromProvider', fact: fact('succeeded') }]);
    const done = decide(asked.state, { kind: 'providerCompleted', completion: { paidLinkId: 'plink_1' } });
    expect(done.state.status).toBe('completed');
    expect(done.effects).toEqual([
      { kind: 'move', move: { kind: 'announce', status: 'completed' } },
      { kind: 'linkPaid', linkId: 'plink_1' },
    ]);
    const duplicate = decide(asked.state, { kind: 'providerCompleted', completion: { paidLinkId: null, duplicateExceptionId: 'exc_dup' } });
    expect(duplicate.state.status).toBe('pending');
    // Deposit logs are not its proof.
    expect(decide(providerSession(), { kind: 'deposit', fact: log(1) }).effects).toEqual([]);
  });
});

describe('the decisions under random events', () => {
  const event: fc.Arbitrary<SessionEvent> = fc.oneof(
    fc.record({
      kind: fc.constant('provider' as const),
      fact: fc.constantFrom('processing', 'succeeded', 'failed').map((t) => fact(t)),
      nowMs: fc.integer({ min: T0, max: T0 + 2 * HOUR }),
    }),
    fc.nat(5).map((n): SessionEvent => ({ kind: 'deposit', fact: log(n) })),
    fc.nat(5).map((n): SessionEvent => ({ kind: 'deposit', fact: log(n, 'removed') })),
    fc.constant<SessionEvent>({ kind: 'cancel' }),
    fc.constant<SessionEvent>({ kind: 'expire' }),
    fc.integer({ min: T0, max: T0 + 2 * HOUR }).map((nowMs): SessionEvent => ({ kind: 'deadline', nowMs })),
    fc.bigInt({ min: 0n, max: 50_000_000n }).map((c) => credited(c)),
    fc
      .tuple(
        fc.bigInt({ min: 0n, max: 50_000_000n }),
        fc.constantFrom<ChainCompletionReport | null>(null, { paidLinkId: null }, { paidLinkId: null, duplicateExceptionId: 'exc_dup' }),
      )
      .map(([c, completion]) => credited(c, null, completion)),
    fc.constant<SessionEvent>({ kind: 'providerCompleted', completion: { paidLinkId: null } }),
  );

  it('never leaves a terminal status, completes a chain-verified session only on the chain’s report, and never ends one with credits unrecorded', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(event, { maxLength: 30 }), (chain, events) => {
        let state = chain ? chainSession() : providerSession();
        for (const e of events) {
          const { state: next, effects } = decide(state, e);
          if (isTerminal(state.status)) expect(next.status).toBe(state.status);
          if (chain && next.status === 'completed' && state.status !== 'completed') {
            // ... a credit that covered G, with the completion's report.
            expect(e.kind === 'credited' && creditCovers(e.credit) && !!e.completion).toBe(true);
          }
          // Ended unpaid with credits counted: the shortfall is recorded in the same decision, before the move.
          if (chain && !isTerminal(state.status) && ['canceled', 'failed', 'expired'].includes(next.status) && state.creditedMicro > 0n) {
            expect(kinds(effects).slice(0, 2)).toEqual(['recordShortfall', 'move']);
          }
          // Money events after the end are recorded as exceptions, nothing else.
          if (isTerminal(state.status) && (e.kind === 'deposit' || e.kind === 'provider')) {
            expect(kinds(effects).every((k) => k === 'recordLateDeposit' || k === 'recordLateSuccess' || k === 'uncredit')).toBe(true);
          }
          state = next;
        }
      }),
      { numRuns: 20_000 },
    );
  });
});
