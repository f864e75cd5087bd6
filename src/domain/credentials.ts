import { createHash, hash, randomInt, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './ids';

// Merchant credentials (docs/decisions/0005-security-model.md): live keys and security codes are shown once and
// stored only as SHA-256 hashes. Keys are high-entropy, so an unsalted fast hash is the
// standard choice (as Stripe and Unkey do): lookup by hash needs it to be deterministic.

export const LIVE_KEY_PREFIX = 'svc_live_';
const LIVE_KEY = /^svc_live_[A-Za-z0-9]{32}$/;
// Checked before the live prefix: svc_live_sk_… starts with svc_live_ but is retired.
const RETIRED_PREFIXES = ['svc_test_sk_', 'svc_live_sk_', 'svc_test_', 'pk_'];

export type PresentedKey = { kind: 'live'; key: string } | { kind: 'retired' } | { kind: 'malformed' };

export function classifyApiKey(key: string): PresentedKey {
  if (RETIRED_PREFIXES.some((p) => key.startsWith(p))) return { kind: 'retired' };
  if (LIVE_KEY.test(key)) return { kind: 'live', key };
  return { kind: 'malformed' };
}

export interface IssuedKey {
  /** The full key: returned to the operator once, never stored. */
  plaintext: string;
  hash: string;
  /** First 12 characters, enough to tell keys apart in listings and logs. */
  displayPrefix: string;
  last4: string;
}

export function issueLiveKey(): IssuedKey {
  const plaintext = LIVE_KEY_PREFIX + randomBase62(32);
  return {
    plaintext,
    hash: sha256Hex(plaintext),
    displayPrefix: plaintext.slice(0, 12),
    last4: plaintext.slice(-4),
  };
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const SECURITY_CODE = /^[A-HJ-NP-Z2-9]{6}(-[A-HJ-NP-Z2-9]{6}){3}$/;

export function issueSecurityCode(): { plaintext: string; hash: string } {
  const groups = Array.from({ length: 4 }, () => Array.from({ length: 6 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join(''));
  const plaintext = groups.join('-');
  return { plaintext, hash: sha256Hex(plaintext) };
}

export const isSecurityCodeShape = (code: string) => SECURITY_CODE.test(code);

/** Every merchant call hashes its key: the one-shot hash takes about 0.35 µs where a Hash object takes 0.9. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time equality of two strings; unequal lengths compare a hash so timing says nothing. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(createHash('sha256').update(ab).digest(), createHash('sha256').update(bb).digest());
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** A webhook signing secret: shown to the merchant, stored encrypted. */
export const issueWebhookSecret = () => `whsec_${randomBase62(32)}`;
