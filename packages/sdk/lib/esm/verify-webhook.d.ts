export type VerifyFailure = 
/** No header, or no `t` or no `v1` in it. */
'missing_signature'
/** No `v1` matches: another secret, or a body or timestamp changed on the way. */
 | 'bad_signature'
/** `t` is older than the tolerance: a replay of a captured delivery, or a very slow queue. */
 | 'stale_timestamp'
/** `t` is further ahead than the tolerance: a forged timestamp, or a clock that is badly off. */
 | 'future_timestamp';
export type VerifyResult = {
    ok: true;
} | {
    ok: false;
    reason: VerifyFailure;
};
export interface VerifyOptions {
    /** How far `t` may be from now, either way; 300 s unless you have a reason. */
    toleranceSeconds?: number;
    /** The current time; for tests. */
    now?: Date;
}
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
/**
 * Checks one delivery: the HMAC of `<t>.<raw body>` (constant-time), then `t` within the tolerance
 * of now in either direction, so a captured delivery cannot be replayed later.
 *
 *   const check = verifyWebhook(req.body, req.get('svc-signature'), process.env.SVC_WEBHOOK_SECRET!);
 *   if (!check.ok) return res.status(400).send(check.reason);
 */
export declare function verifyWebhook(rawBody: string | Uint8Array, signatureHeader: string | string[] | null | undefined, secret: string, options?: VerifyOptions): VerifyResult;
