import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { signatureHeader } from '../../src/domain/signatures';
import { verifyWebhook } from '../../src/webhooks/verify';

const now = new Date('2026-11-22T12:00:00Z');
const t = Math.floor(now.getTime() / 1000);

describe('verifyWebhook (the merchants’ helper)', () => {
  it('accepts a delivery signed with the secret, as a string or a Buffer', () => {
    const body = '{"event":"payment.completed","eventId":"evt_1"}';
    const header = signatureHeader('whsec_test', t, body);
    expect(verifyWebhook(body, header, 'whsec_test', { now })).toEqual({ ok: true });
    expect(verifyWebhook(Buffer.from(body), [header], 'whsec_test', { now })).toEqual({ ok: true });
  });

  it('rejects missing parts, bad signatures, stale and future timestamps', () => {
    const body = '{}';
    const header = signatureHeader('s', t, body);
    expect(verifyWebhook(body, undefined, 's', { now })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyWebhook(body, header.split(',')[0], 's', { now })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyWebhook(body, header.split(',')[1], 's', { now })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyWebhook(body, header.replace(/v1=./, 'v1=0'), 's', { now })).toMatchObject({ ok: false });
    expect(verifyWebhook(body, header, 's', { now: new Date(now.getTime() + 301_000) })).toEqual({ ok: false, reason: 'stale_timestamp' });
    // A t ahead of the receiver's clock is refused as well: |now - t| <= 300 either way.
    expect(verifyWebhook(body, header, 's', { now: new Date(now.getTime() - 301_000) })).toEqual({ ok: false, reason: 'future_timestamp' });
    expect(verifyWebhook(body, header, 's', { now: new Date(now.getTime() - 299_000) })).toEqual({ ok: true });
    expect(verifyWebhook(body, header, 's', { now: new Date(now.getTime() + 3_600_000), toleranceSeconds: 7200 })).toEqual({ ok: true });
  });

  it('fails for any change to the body, the timestamp or the secret', () => {
    fc.assert(
      fc.property(
        fc.json(),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 299 }),
        fc.nat({ max: 200 }),
        (body, secret, otherSecret, skew, cut) => {
          const header = signatureHeader(secret, t, body);
          expect(verifyWebhook(body, header, secret, { now })).toEqual({ ok: true });
          // A re-serialised or altered body: one character more, or one fewer.
          expect(verifyWebhook(`${body} `, header, secret, { now }).ok).toBe(false);
          if (body.length > 0) {
            const i = cut % body.length;
            expect(verifyWebhook(body.slice(0, i) + body.slice(i + 1), header, secret, { now }).ok).toBe(false);
          }
          // The same signature under another timestamp, still within the tolerance.
          const moved = header.replace(`t=${t}`, `t=${t - skew}`);
          expect(verifyWebhook(body, moved, secret, { now })).toEqual({ ok: false, reason: 'bad_signature' });
          if (otherSecret !== secret)
            expect(verifyWebhook(body, header, otherSecret, { now })).toEqual({ ok: false, reason: 'bad_signature' });
        },
      ),
    );
  });

  it('agrees with plain openssl, as docs/webhooks.md shows merchants', () => {
    const body = '{"event":"payment.completed","amount":"25.00"}';
    const expected = execFileSync('sh', ['-c', `printf '%s' "${t}.$BODY" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.*= //'`], {
      env: { ...process.env, BODY: body, SECRET: 'whsec_shell' },
      encoding: 'utf8',
    }).trim();
    expect(verifyWebhook(body, `t=${t},v1=${expected}`, 'whsec_shell', { now })).toEqual({ ok: true });
  });
});
