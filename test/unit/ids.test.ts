import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  isCanonicalPaymentId,
  newDeliveryId,
  newEventId,
  newMerchantId,
  newPaymentId,
  newPaymentLinkId,
  newSiteId,
} from '../../src/domain/ids';

describe('identifiers', () => {
  it.each([
    ['payment', newPaymentId, /^SV_[0-9A-Za-z]{24}$/],
    ['merchant', newMerchantId, /^MER_[0-9A-Za-z]{16}$/],
    ['event', newEventId, /^evt_[0-9A-Za-z]{24}$/],
    ['delivery', newDeliveryId, /^dlv_[0-9A-Za-z]{24}$/],
    ['payment link', newPaymentLinkId, /^plink_[0-9A-Za-z]{24}$/],
    ['site', newSiteId, /^site_[0-9A-Za-z]{16}$/],
  ])('%s ids have their format and do not repeat', (_name, make, shape) => {
    const ids = Array.from({ length: 2000 }, make);
    for (const id of ids) expect(id).toMatch(shape);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses the whole base62 alphabet', () => {
    const seen = new Set(Array.from({ length: 500 }, () => newPaymentId().slice(3)).join(''));
    expect(seen.size).toBe(62);
  });

  it('accepts canonical ids and rejects row ids, UUIDs and anything else', () => {
    expect(isCanonicalPaymentId(newPaymentId())).toBe(true);
    for (const bad of ['42', '550e8400-e29b-41d4-a716-446655440000', 'SV_', 'sv_abc', 'SV_abc-def', ' SV_abc', `SV_${'a'.repeat(65)}`]) {
      expect(isCanonicalPaymentId(bad)).toBe(false);
    }
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(isCanonicalPaymentId(s)).toBe(/^SV_[A-Za-z0-9]{1,64}$/.test(s));
      }),
    );
  });
});
