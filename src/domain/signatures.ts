import { createHmac, timingSafeEqual } from 'node:crypto';

// The `t=<unix>,v1=<hex>` scheme over `<t>.<raw body>`. Our webhooks and the sandbox
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

// Standard Webhooks (standardwebhooks.com), sent alongside our own headers so that its published
// verifiers work unchanged: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`, keyed
// with the base64 part of the `whsec_…` secret, decoded. Our secrets are `whsec_` + 32 base62
// characters, which is valid base64 (24 bytes), so the same secret serves both schemes.
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

export function standardWebhookSignature(secret: string, messageId: string, timestamp: number, rawBody: string): string | null {
  const match = STANDARD_SECRET.exec(secret);
  if (!match) return null;
  const key = Buffer.from(match[1]!, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${rawBody}`, 'utf8').digest('base64')}`;
}

/**
 * Every signature header of one delivery attempt, signed at `timestamp`: ours and, when
 * the secret has the standard shape, the Standard Webhooks trio with the event id as `webhook-id`
 * (the same across retries and resends, as that standard asks, and what receivers deduplicate on).
 */
export function deliverySignatureHeaders(secret: string, eventId: string, timestamp: number, rawBody: string): Record<string, string> {
  const standard = standardWebhookSignature(secret, eventId, timestamp, rawBody);
  return {
    'svc-signature': signatureHeader(secret, timestamp, rawBody),
    'svc-timestamp': String(timestamp),
    ...(standard ? { 'webhook-id': eventId, 'webhook-timestamp': String(timestamp), 'webhook-signature': standard } : {}),
  };
}
