import type { WebhookEvent } from './events.js';
import { type VerifyOptions, type VerifyResult } from './verify-webhook.js';
/**
 * Verifies a delivery on its raw body (svc-signature, with the verifier's timestamp tolerance) and
 * returns its event, typed as the union of every event: `switch (check.event.event)` narrows it.
 * `{ ok: false, reason }` when the signature does not hold.
 */
export declare function parseWebhook(rawBody: string | Uint8Array, signatureHeader: string | string[] | undefined | null, secret: string, options?: VerifyOptions): {
    ok: true;
    event: WebhookEvent;
} | Extract<VerifyResult, {
    ok: false;
}>;
/** A signing secret shaped as the service's (`whsec_` + 32 base62), so the Standard Webhooks headers apply too. */
export declare function newSigningSecret(): string;
/**
 * The signature headers of one delivery, as the service sends them: `svc-signature` (HMAC-SHA256 of
 * `<t>.<body>`, hex) and, for a standard-shaped secret, Standard Webhooks' `webhook-*` trio.
 */
export declare function signDelivery(secret: string, eventId: string, timestamp: number, rawBody: string): Record<string, string>;
