// Copied from packages/verify-webhook/verify.ts by `npm run build:sdk`; edit that file instead.
// Verifies a webhook delivery from svc checkout. Self-contained on purpose: copy this one file into
// your server (it needs nothing but Node's crypto module), or install the package it belongs to.
//
// The signature header is `svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`, computed with your
// endpoint's secret (`whsec_…`) over `<t>.<raw body>`. Verify on the raw body as received, before any
// JSON parsing: a re-serialised body no longer matches. Then process each `eventId` once.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type VerifyFailure =
  /** No header, or no `t` or no `v1` in it. */
  | 'missing_signature'
  /** No `v1` matches: another secret, or a body or timestamp changed on the way. */
  | 'bad_signature'
  /** `t` is older than the tolerance: a replay of a captured delivery, or a very slow queue. */
  | 'stale_timestamp'
  /** `t` is further ahead than the tolerance: a forged timestamp, or a clock that is badly off. */
  | 'future_timestamp';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** How far `t` may be from now, either way; 300 s unless you have a reason. */
  toleranceSeconds?: number;
  /** The current time; for tests. */
  now?: Date;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

interface ParsedHeader {
  t: number;
  v1: string[];
}

function parseHeader(header: string | string[] | null | undefined): ParsedHeader | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (eq < 0 || !val) continue;
    if (key === 't' && /^\d{1,12}$/.test(val)) t = Number(val);
    // Several v1 entries may come while a secret is being rotated: any one may match.
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(val)) v1.push(val.toLowerCase());
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

function expectedSignature(secret: string, t: number, rawBody: string | Uint8Array): Buffer {
  const hmac = createHmac('sha256', secret).update(`${t}.`, 'utf8');
  // Bytes are signed as received; a string is taken as the UTF-8 text of the body.
  if (typeof rawBody === 'string') hmac.update(rawBody, 'utf8');
  else hmac.update(rawBody);
  return hmac.digest();
}

/**
 * Checks one delivery: the HMAC of `<t>.<raw body>` (constant-time), then `t` within the tolerance
 * of now in either direction, so a captured delivery cannot be replayed later.
 *
 *   const check = verifyWebhook(req.body, req.get('svc-signature'), process.env.SVC_WEBHOOK_SECRET!);
 *   if (!check.ok) return res.status(400).send(check.reason);
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  const parsed = parseHeader(signatureHeader);
  if (!parsed) return { ok: false, reason: 'missing_signature' };
  const expected = expectedSignature(secret, parsed.t, rawBody);
  const matches = parsed.v1.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'bad_signature' };
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - parsed.t > tolerance) return { ok: false, reason: 'stale_timestamp' };
  if (parsed.t - now > tolerance) return { ok: false, reason: 'future_timestamp' };
  return { ok: true };
}
