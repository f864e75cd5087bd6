import { checkSignature } from '../domain/signatures';

/**
 * Verifies a webhook delivery the way a merchant's server should (spec §6.2): on the raw body as
 * received, before any JSON parsing, with a constant-time comparison, rejecting a `t` older (or
 * newer) than `toleranceSeconds`. Process each `eventId` once after this returns ok.
 *
 *   const result = verifyWebhook(rawBody, req.headers['svc-signature'], process.env.WEBHOOK_SECRET);
 *   if (!result.ok) return res.status(400).end();
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  signatureHeader: string | string[] | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): { ok: true } | { ok: false; reason: 'missing_signature' | 'bad_signature' | 'stale_timestamp' } {
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const result = checkSignature(body, header, secret, { toleranceSeconds: options.toleranceSeconds ?? 300, ...(options.now ? { now: options.now } : {}) });
  return result === 'ok' ? { ok: true } : { ok: false, reason: result };
}
