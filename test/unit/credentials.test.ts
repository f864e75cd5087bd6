import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  classifyApiKey,
  constantTimeEqual,
  isSecurityCodeShape,
  issueLiveKey,
  issueSecurityCode,
  sha256Hex,
} from '../../src/domain/credentials';

describe('API keys', () => {
  it('issues svc_live_ keys with a hash, display prefix and last 4', () => {
    const key = issueLiveKey();
    expect(key.plaintext).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(key.hash).toBe(sha256Hex(key.plaintext));
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.displayPrefix).toBe(key.plaintext.slice(0, 12));
    expect(key.last4).toBe(key.plaintext.slice(-4));
    expect(classifyApiKey(key.plaintext)).toEqual({ kind: 'live', key: key.plaintext });
  });

  it('treats legacy and test prefixes as retired, checking legacy before live', () => {
    const body = 'a'.repeat(32);
    for (const key of [`svc_live_sk_${body}`, `svc_test_sk_${body}`, `svc_test_${body}`, `pk_${body}`, 'pk_live_x']) {
      expect(classifyApiKey(key)).toEqual({ kind: 'retired' });
    }
  });

  it('rejects anything that is not exactly a live key as malformed', () => {
    for (const key of [
      '',
      'svc_live_',
      `svc_live_${'a'.repeat(31)}`,
      `svc_live_${'a'.repeat(33)}`,
      `svc_live_${'a'.repeat(31)}!`,
      'Bearer x',
    ]) {
      expect(classifyApiKey(key)).toEqual({ kind: 'malformed' });
    }
  });
});

describe('security codes', () => {
  it('are four groups of six from the unambiguous alphabet', () => {
    for (let i = 0; i < 200; i++) {
      const code = issueSecurityCode();
      expect(code.plaintext).toMatch(/^[A-HJ-NP-Z2-9]{6}(-[A-HJ-NP-Z2-9]{6}){3}$/);
      expect(code.plaintext).not.toMatch(/[IO01]/);
      expect(isSecurityCodeShape(code.plaintext)).toBe(true);
      expect(code.hash).toBe(sha256Hex(code.plaintext));
    }
    expect(isSecurityCodeShape('ABCDEF-ABCDEF-ABCDEF')).toBe(false);
    expect(isSecurityCodeShape('ABCDE0-ABCDEF-ABCDEF-ABCDEF')).toBe(false);
  });
});

describe('constantTimeEqual', () => {
  it('agrees with === for any pair of strings', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });
});
