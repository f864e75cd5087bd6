import { describe, expect, it } from 'vitest';
import { linkPayer, PAY_ANSWER_WINDOW_MS, payingRail, type LinkSessionFacts } from '../../src/domain/link-payer';

// At most one session of a payment link takes its money at a time: which sessions hold the link,
// read from the pure rule (no database).

const now = new Date('2030-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const session = (facts: Partial<LinkSessionFacts> = {}): LinkSessionFacts => ({
  status: 'pending',
  expiresAt: new Date(now.getTime() + 3_600_000),
  payAttemptAt: null,
  providerPaymentId: null,
  declinedAt: null,
  depositShownAt: null,
  credited: false,
  ...facts,
});

describe('a session taking its link’s money', () => {
  it('is not while its customer only looks at the page', () => {
    expect(payingRail(session(), now)).toBeNull();
  });

  it('is through the provider once Pay was pressed and its provider payment exists, and while processing', () => {
    expect(payingRail(session({ payAttemptAt: ago(5000), providerPaymentId: 'pay_1' }), now)).toBe('provider');
    expect(payingRail(session({ status: 'processing', payAttemptAt: ago(5000), providerPaymentId: 'pay_1' }), now)).toBe('provider');
    // Money under way through the provider is waited for even past the session's expiry.
    expect(payingRail(session({ status: 'processing', expiresAt: ago(1) }), now)).toBe('provider');
  });

  it('holds a Pay whose provider has not answered yet only for the answer window', () => {
    expect(payingRail(session({ payAttemptAt: ago(1000) }), now)).toBe('provider');
    expect(payingRail(session({ payAttemptAt: ago(PAY_ANSWER_WINDOW_MS) }), now)).toBeNull();
  });

  it('lets go after a decline, and holds again when its customer presses Pay after it', () => {
    const declined = session({ payAttemptAt: ago(60_000), providerPaymentId: 'pay_1', declinedAt: ago(30_000) });
    expect(payingRail(declined, now)).toBeNull();
    expect(payingRail({ ...declined, payAttemptAt: ago(1000) }, now)).toBe('provider');
  });

  it('is from a wallet once the deposit instructions were handed out or money arrived, whatever the provider said', () => {
    expect(payingRail(session({ depositShownAt: ago(10) }), now)).toBe('wallet');
    expect(payingRail(session({ credited: true }), now)).toBe('wallet');
    // A declined card does not close the address the customer was given.
    const both = session({ depositShownAt: ago(90_000), payAttemptAt: ago(60_000), providerPaymentId: 'pay_1', declinedAt: ago(30_000) });
    expect(payingRail(both, now)).toBe('wallet');
  });

  it('is not once the session ended (paid, failed, expired, canceled) or is pending past its expiry', () => {
    const holding = { depositShownAt: ago(10), payAttemptAt: ago(10), providerPaymentId: 'pay_1', credited: true };
    for (const status of ['completed', 'failed', 'expired', 'canceled'] as const) {
      expect(payingRail(session({ ...holding, status }), now), status).toBeNull();
    }
    expect(payingRail(session({ ...holding, expiresAt: now }), now)).toBeNull();
  });

  it('names the first of the other sessions that holds the link', () => {
    const others = [
      { id: 'SV_a', ...session() },
      { id: 'SV_b', ...session({ depositShownAt: ago(10) }) },
      { id: 'SV_c', ...session({ payAttemptAt: ago(10), providerPaymentId: 'pay_c' }) },
    ];
    expect(linkPayer(others, now)?.id).toBe('SV_b');
    expect(linkPayer(others.slice(0, 1), now)).toBeUndefined();
    expect(linkPayer([], now)).toBeUndefined();
  });
});
