import { describe, expect, it } from 'vitest';
import { checkRefundAmount, refundableMicro } from '../../src/domain/payment-refund';

// The amount rule of a completed payment's refund; what the merchant's balance holds for it is
// drawn under the merchant's lock (test/domain/balances.test.ts, test/proof/settlement.property.test.ts).

describe('refunds of completed payments', () => {
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

  it('leaves the rest of a payment refundable, never below 0', () => {
    expect(refundableMicro({ grossMicro: 10n, refundedMicro: 4n })).toBe(6n);
    expect(refundableMicro({ grossMicro: 10n, refundedMicro: 12n })).toBe(0n);
  });
});
