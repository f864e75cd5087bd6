import { describe, expect, it } from 'vitest';
import {
  canTransition,
  canTransitionOrder,
  checkoutSourcesOf,
  eventTypeFor,
  isOrderOpen,
  isTerminal,
  orderSourcesOf,
  PAYMENT_STATUSES,
  SIMPLE_ORDER_STATUSES,
  TERMINAL_STATUSES,
} from '../../src/domain/payment-status';
import { checkSignature, parseSignatureHeader, signatureHeader } from '../../src/domain/signatures';
import fc from 'fast-check';

describe('payment states', () => {
  it('has exactly four terminal states, none of which moves again', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(['canceled', 'completed', 'expired', 'failed']);
    for (const from of TERMINAL_STATUSES) for (const to of PAYMENT_STATUSES) expect(canTransition(from, to)).toBe(false);
  });

  it('allows the documented transitions only', () => {
    expect(canTransition('pending', 'processing')).toBe(true);
    expect(canTransition('processing', 'completed')).toBe(true);
    expect(canTransition('processing', 'expired')).toBe(true);
    expect(canTransition('pending', 'canceled')).toBe(true);
    expect(canTransition('processing', 'canceled')).toBe(false);
    expect(canTransition('processing', 'pending')).toBe(false);
    expect(isTerminal('pending')).toBe(false);
  });

  it('gives the conditional SQL exactly the statuses each move may start from', () => {
    expect(checkoutSourcesOf('completed')).toEqual(['pending', 'processing']);
    expect(checkoutSourcesOf('canceled')).toEqual(['pending']);
    expect(checkoutSourcesOf('expired')).toEqual(['pending', 'processing']);
    expect(checkoutSourcesOf('pending')).toEqual([]);
    for (const to of PAYMENT_STATUSES) for (const from of checkoutSourcesOf(to)) expect(canTransition(from, to)).toBe(true);
  });

  it('names the v1 event of each transition', () => {
    expect(eventTypeFor('completed')).toBe('payment.completed');
    expect(eventTypeFor('canceled')).toBe('payment.canceled');
    expect(eventTypeFor('pending')).toBeNull();
  });
});

describe('simple order states', () => {
  it('pending → processing → settled | failed; pending → expired; nothing leaves an end', () => {
    expect(SIMPLE_ORDER_STATUSES.filter((s) => !isOrderOpen(s)).sort()).toEqual(['expired', 'failed', 'settled']);
    expect(canTransitionOrder('pending', 'expired')).toBe(true);
    expect(canTransitionOrder('processing', 'expired')).toBe(false);
    expect(canTransitionOrder('processing', 'failed')).toBe(true);
    expect(orderSourcesOf('settled')).toEqual(['pending', 'processing']);
    expect(orderSourcesOf('expired')).toEqual(['pending']);
    for (const from of SIMPLE_ORDER_STATUSES.filter((s) => !isOrderOpen(s)))
      for (const to of SIMPLE_ORDER_STATUSES) expect(canTransitionOrder(from, to)).toBe(false);
  });
});

describe('t=,v1= signatures', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const t = Math.floor(now.getTime() / 1000);

  it('verifies what it signed, within the tolerance', () => {
    const header = signatureHeader('secret-1', t, '{"a":1}');
    expect(checkSignature('{"a":1}', header, 'secret-1', { now })).toBe('ok');
    expect(checkSignature('{"a":1}', header, 'secret-1', { now: new Date(now.getTime() + 301_000) })).toBe('stale_timestamp');
    expect(checkSignature('{"a":1}', header, 'secret-1', { now: new Date(now.getTime() - 301_000) })).toBe('stale_timestamp');
  });

  it('rejects missing parts', () => {
    expect(checkSignature('x', undefined, 's', { now })).toBe('missing_signature');
    expect(checkSignature('x', `t=${t}`, 's', { now })).toBe('missing_signature');
    expect(checkSignature('x', 'v1=' + 'a'.repeat(64), 's', { now })).toBe('missing_signature');
    expect(parseSignatureHeader(`t=${t},v1=${'a'.repeat(64)},v0=zz`)).toEqual({ t, v1: ['a'.repeat(64)] });
  });

  it('fails on any change to body, timestamp or secret', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (body, secret, other) => {
        const header = signatureHeader(secret, t, body);
        expect(checkSignature(body, header, secret, { now })).toBe('ok');
        expect(checkSignature(body + ' ', header, secret, { now })).toBe('bad_signature');
        if (other !== secret) expect(checkSignature(body, header, other, { now })).toBe('bad_signature');
        const shifted = header.replace(`t=${t}`, `t=${t + 1}`);
        expect(checkSignature(body, shifted, secret, { now })).toBe('bad_signature');
      }),
    );
  });
});
