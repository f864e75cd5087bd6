import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { renderVerifierPackage, VERIFIER_DIR } from '../../scripts/build-verifier';
import { issueWebhookSecret } from '../../src/domain/credentials';
import { deliverySignatureHeaders, signatureHeader } from '../../src/domain/signatures';
import {
  readmeVerifierSnippet,
  verifyWithCopiedFile,
  verifyWithPackage,
  verifyWithShellRecipe,
  type VerifyCase,
} from '../support/verifier-copies';

// The merchants' verifiers as merchants get them (docs/webhooks.md), against signatures made by the
// service's own signer (src/domain/signatures.ts, what the delivery activity sends).

const secret = issueWebhookSecret();
const body = '{"event":"payment.completed","eventId":"evt_1","amount":"25.00","note":"café ✓"}';
const nowMs = Date.now();
const t = Math.floor(nowMs / 1000);

// Every case is judged at the same instant, so that slow machines cannot move a case across the line.
const cases: VerifyCase[] = (
  [
    { name: 'valid', body, header: signatureHeader(secret, t, body), secret },
    { name: 'valid, 299 s old', body, header: signatureHeader(secret, t - 299, body), secret },
    { name: 'valid, 299 s ahead', body, header: signatureHeader(secret, t + 299, body), secret },
    {
      name: 'secret rotation: second v1 matches',
      body,
      header: `${signatureHeader('whsec_old', t, body)},v1=${signatureHeader(secret, t, body).split('v1=')[1]}`,
      secret,
    },
    { name: 'tampered body', body: body.replace('25.00', '2500'), header: signatureHeader(secret, t, body), secret },
    { name: 're-serialised body', body: JSON.stringify(JSON.parse(body), null, 1), header: signatureHeader(secret, t, body), secret },
    { name: 'wrong secret', body, header: signatureHeader(secret, t, body), secret: issueWebhookSecret() },
    { name: 'timestamp changed', body, header: signatureHeader(secret, t, body).replace(`t=${t}`, `t=${t - 1}`), secret },
    { name: 'stale', body, header: signatureHeader(secret, t - 301, body), secret },
    { name: 'future', body, header: signatureHeader(secret, t + 301, body), secret },
    { name: 'no header', body, header: undefined, secret },
    { name: 'no v1', body, header: `t=${t}`, secret },
    { name: 'receiver clock 10 min behind', body, header: signatureHeader(secret, t, body), secret, nowMs: nowMs - 600_000 },
  ] as VerifyCase[]
).map((c) => ({ nowMs, ...c }));

const expected = {
  valid: { ok: true },
  'valid, 299 s old': { ok: true },
  'valid, 299 s ahead': { ok: true },
  'secret rotation: second v1 matches': { ok: true },
  'tampered body': { ok: false, reason: 'bad_signature' },
  're-serialised body': { ok: false, reason: 'bad_signature' },
  'wrong secret': { ok: false, reason: 'bad_signature' },
  'timestamp changed': { ok: false, reason: 'bad_signature' },
  stale: { ok: false, reason: 'stale_timestamp' },
  future: { ok: false, reason: 'future_timestamp' },
  'no header': { ok: false, reason: 'missing_signature' },
  'no v1': { ok: false, reason: 'missing_signature' },
  'receiver clock 10 min behind': { ok: false, reason: 'future_timestamp' },
};

describe('the verifier file, copied as docs/webhooks.md says', () => {
  it('docs/webhooks.md names the self-contained file, which imports nothing but node:crypto', () => {
    const { importLine, source } = readmeVerifierSnippet();
    expect(source).toBe('packages/verify-webhook/verify.ts');
    expect(importLine).toBe("import { verifyWebhook } from './verify';");
    const imports = [...readFileSync(path.join(VERIFIER_DIR, 'verify.ts'), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map(
      (m) => m[1],
    );
    expect(imports).toEqual(['node:crypto']);
  });

  it('accepts real signatures within 300 s either way and rejects tampering, wrong secrets, stale and future timestamps', async () => {
    expect(await verifyWithCopiedFile(cases)).toEqual(expected);
  });
});

describe('the package folder, installed', () => {
  it('gives the same verdicts from CommonJS and ESM', async () => {
    const { cjs, esm } = await verifyWithPackage(cases);
    expect(cjs).toEqual(expected);
    expect(esm).toEqual(expected);
  });

  it('ships index.js and index.d.ts generated from verify.ts (npm run build:verifier)', () => {
    const { js, dts } = renderVerifierPackage(readFileSync(path.join(VERIFIER_DIR, 'verify.ts'), 'utf8'));
    expect(readFileSync(path.join(VERIFIER_DIR, 'index.js'), 'utf8')).toBe(js);
    expect(readFileSync(path.join(VERIFIER_DIR, 'index.d.ts'), 'utf8')).toBe(dts);
  });
});

describe('the shell recipe of docs/webhooks.md (bash + openssl)', () => {
  // The recipe reads the clock itself: margins of 100 s keep a slow run on the right side of 300 s.
  const header = (skew: number) => signatureHeader(secret, Math.floor(Date.now() / 1000) + skew, body);

  it.each([
    ['a fresh signature', body, 0, secret, 'valid'],
    ['a signature 200 s old', body, -200, secret, 'valid'],
    ['a signature 200 s ahead', body, 200, secret, 'valid'],
    ['a tampered body', `${body} `, 0, secret, 'invalid'],
    ['a wrong secret', body, 0, 'whsec_wrong', 'invalid'],
    ['a stale timestamp', body, -400, secret, 'invalid'],
    ['a future timestamp', body, 400, secret, 'invalid'],
  ])('%s', async (_name, raw, skew, key, verdict) => {
    expect((await verifyWithShellRecipe(raw, header(skew), key)).verdict).toBe(verdict);
  });

  it('a header without t is invalid', async () => {
    expect((await verifyWithShellRecipe(body, `v1=${header(0).split('v1=')[1]}`, secret)).verdict).toBe('invalid');
  });

  it('does not evaluate a hostile t in shell arithmetic', async () => {
    const hostile = `t=a[$(touch pwned)],v1=${header(0).split('v1=')[1]}`;
    const run = await verifyWithShellRecipe(body, hostile, secret);
    expect(run.verdict).toBe('invalid');
    expect(run.files).toEqual(['body.json']);
  });
});

describe('Standard Webhooks headers, beside ours', () => {
  it('the standardwebhooks package verifies a delivery signed by the service, with the same whsec_ secret', () => {
    const headers = deliverySignatureHeaders(secret, 'evt_abc', t, body);
    expect(headers).toMatchObject({ 'webhook-id': 'evt_abc', 'webhook-timestamp': String(t), 'svc-timestamp': String(t) });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(issueWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('a secret not in the whsec_<base64> shape gets our headers only', () => {
    expect(Object.keys(deliverySignatureHeaders('not-base64!', 'evt_abc', t, body)).sort()).toEqual(['svc-signature', 'svc-timestamp']);
  });
});
