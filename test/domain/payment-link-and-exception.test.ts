import { describe, expect, it } from 'vitest';
import { decideLink, initialLink, type LinkEvent, type LinkState } from '../../src/domain/payment-link';
import {
  decideException,
  initialException,
  nothingDue,
  type AcceptReport,
  type ExceptionEffect,
  type ExceptionEvent,
  type ExceptionState,
} from '../../src/domain/payment-exception';

// A link is paid once, and an exception is accepted or refunded once, read from
// their pure decisions: no database, no Temporal.

const linkRun = (state: LinkState, ...events: LinkEvent[]) => {
  const effects = [];
  for (const e of events) {
    const d = decideLink(state, e);
    state = d.state;
    effects.push(...d.effects);
  }
  return { state, effects };
};

describe('a payment link', () => {
  it('is paid by the first session Postgres names, and a later one changes nothing', () => {
    const { state, effects } = linkRun(initialLink(1000), { kind: 'paid', sessionId: 'SV_a' }, { kind: 'paid', sessionId: 'SV_b' });
    expect(state).toMatchObject({ status: 'paid', paidSessionId: 'SV_a' });
    expect(effects).toEqual([]);
  });

  it('writes its expiry at the deadline, and takes what the conditional write found', () => {
    expect(linkRun(initialLink(1000), { kind: 'deadline', nowMs: 999 }).effects).toEqual([]);
    expect(linkRun(initialLink(1000), { kind: 'deadline', nowMs: 1000 }).effects).toEqual([{ kind: 'expire' }]);
    // A payment whose signal was lost is never undone: the write found the link paid.
    expect(linkRun(initialLink(1000), { kind: 'expiryWritten', status: 'paid' }).state.status).toBe('paid');
  });

  it('writes its expiry when the merchant deactivates it, and a payment that came first stays', () => {
    expect(linkRun(initialLink(1000), { kind: 'deactivated' }).effects).toEqual([{ kind: 'expire' }]);
    expect(linkRun(initialLink(1000), { kind: 'deactivated' }, { kind: 'expiryWritten', status: 'expired' }).state.status).toBe('expired');
    expect(linkRun(initialLink(1000), { kind: 'deactivated' }, { kind: 'expiryWritten', status: 'paid' }).state.status).toBe('paid');
    const paid = linkRun(initialLink(1000), { kind: 'paid', sessionId: 'SV_a' }).state;
    expect(linkRun(paid, { kind: 'deactivated' }).effects).toEqual([]);
  });

  it('never expires once paid', () => {
    const paid = linkRun(initialLink(1000), { kind: 'paid', sessionId: 'SV_a' }).state;
    expect(linkRun(paid, { kind: 'deadline', nowMs: 5000 }).effects).toEqual([]);
  });
});

const excRun = (state: ExceptionState, ...events: ExceptionEvent[]) => {
  const effects: ExceptionEffect[] = [];
  for (const e of events) {
    const d = decideException(state, e);
    state = d.state;
    effects.push(...d.effects);
  }
  return { state, effects };
};
const acceptance = (over: Partial<AcceptReport> = {}): ExceptionEvent => ({
  kind: 'accepted',
  accepted: { paymentId: 'SV_a', paymentStatus: 'completed', completedNow: true, paidLinkId: null, ...over },
});

describe('an exception', () => {
  it('accepted: the payment is completed and announced, once; its money joins the balance, nothing else is due', () => {
    const accepted = excRun(initialException(), acceptance());
    expect(accepted.state).toMatchObject({ outcome: 'accepted' });
    expect(accepted.effects).toEqual([
      { kind: 'markPaymentStatus', status: 'completed' },
      { kind: 'announceCompleted', paymentId: 'SV_a' },
    ]);
    expect(nothingDue(accepted.state)).toBe(true);
    expect(excRun(accepted.state, { kind: 'resume' }).effects).toEqual([]);
    // A second acceptance (a retried call) decides nothing new.
    expect(excRun(accepted.state, acceptance()).effects).toEqual([]);
  });

  it('accepted by a later run, after an earlier one completed the payment: that run still carries the status for a search', () => {
    expect(excRun(initialException(), acceptance({ completedNow: false })).effects).toEqual([
      { kind: 'markPaymentStatus', status: 'completed' },
      { kind: 'announceCompleted', paymentId: 'SV_a' },
    ]);
  });

  it('accepted for a session of a payment link: the run, not the operator’s call, ends the link’s other sessions', () => {
    const accepted = excRun(initialException(), acceptance({ paidLinkId: 'plink_a' }));
    expect(accepted.effects).toEqual([
      { kind: 'markPaymentStatus', status: 'completed' },
      { kind: 'announceCompleted', paymentId: 'SV_a' },
    ]);
    expect(nothingDue(accepted.state)).toBe(false);
    const resumed = excRun(accepted.state, { kind: 'resume' });
    expect(resumed.effects).toEqual([{ kind: 'linkPaid', paymentId: 'SV_a', linkId: 'plink_a' }]);
    expect(resumed.state).toMatchObject({ linkDue: null });
    expect(nothingDue(resumed.state)).toBe(true);
  });

  it('refunded: the planned transfers are sent by the run, and the exception is refunded once they settle', () => {
    const planned = excRun(initialException(), { kind: 'refundPlanned', payoutIds: ['po_1'] }).state;
    expect(excRun(planned, { kind: 'resume' }).effects).toEqual([{ kind: 'sendRefund', payoutIds: ['po_1'] }]);
    const done = excRun(planned, { kind: 'refundSent', settled: true }).state;
    expect(done).toEqual({ outcome: 'refunded', refundDue: null, linkDue: null });
    // Nothing can be accepted or refunded after that.
    expect(excRun(done, acceptance()).state.outcome).toBe('refunded');
    expect(excRun(done, { kind: 'refundPlanned', payoutIds: ['po_2'] }).state.refundDue).toBeNull();
  });

  it('a refund whose transfer failed is recorded and leaves the exception open for another decision', () => {
    const planned = excRun(initialException(), { kind: 'refundPlanned', payoutIds: ['po_1'] }).state;
    const { state, effects } = excRun(planned, { kind: 'refundSent', settled: false, reason: 'reverted' });
    expect(effects).toEqual([{ kind: 'refundNotSent', payoutIds: ['po_1'], reason: 'reverted' }]);
    expect(state).toEqual({ outcome: 'open', refundDue: null, linkDue: null });
  });

  it('a run started again for a resolved exception takes the outcome Postgres holds', () => {
    expect(excRun(initialException(), { kind: 'loaded', outcome: 'refunded' }).state.outcome).toBe('refunded');
  });
});
