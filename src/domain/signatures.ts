import { createHmac, timingSafeEqual } from 'node:crypto';

// The `t=<unix>,v1=<hex>` scheme over `<t>.<raw body>` (spec §6.2). Our webhooks and the sandbox
// provider's callbacks both use it, each with its own secret and header name.

export function signBody(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

export function signatureHeader(secret: string, timestamp: number, rawBody: string): string {
  return `t=${timestamp},v1=${signBody(secret, timestamp, rawBody)}`;
}

export function parseSignatureHeader(header: string | undefined): { t: number; v1: string[] } | null {
  if (!header) return null;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2) as [string, string | undefined];
    if (!value) continue;
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

export type SignatureCheck = 'ok' | 'missing_signature' | 'bad_signature' | 'stale_timestamp';

/**
 * Verifies a signature header on the unmodified raw body: the HMAC must match (constant time) and
 * `t` must be within `toleranceSeconds` of now, so a captured request cannot be replayed later.
 */
export function checkSignature(
  rawBody: string,
  header: string | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): SignatureCheck {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return 'missing_signature';
  const expected = Buffer.from(signBody(secret, parsed.t, rawBody), 'hex');
  const matches = parsed.v1.some((sig) => {
    const given = Buffer.from(sig, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return 'bad_signature';
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - parsed.t) > (options.toleranceSeconds ?? 300)) return 'stale_timestamp';
  return 'ok';
}
