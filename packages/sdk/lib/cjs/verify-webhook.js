"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_TOLERANCE_SECONDS = void 0;
exports.verifyWebhook = verifyWebhook;
// Copied from packages/verify-webhook/verify.ts by `npm run build:sdk`; edit that file instead.
// Verifies a webhook delivery from svc checkout. Self-contained on purpose: copy this one file into
// your server (it needs nothing but Node's crypto module), or install the package it belongs to.
//
// The signature header is `svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`, computed with your
// endpoint's secret (`whsec_…`) over `<t>.<raw body>`. Verify on the raw body as received, before any
// JSON parsing: a re-serialised body no longer matches. Then process each `eventId` once.
const node_crypto_1 = require("node:crypto");
exports.DEFAULT_TOLERANCE_SECONDS = 300;
function parseHeader(header) {
    const value = Array.isArray(header) ? header[0] : header;
    if (!value)
        return null;
    let t = null;
    const v1 = [];
    for (const part of value.split(',')) {
        const eq = part.indexOf('=');
        const key = part.slice(0, eq).trim();
        const val = part.slice(eq + 1).trim();
        if (eq < 0 || !val)
            continue;
        if (key === 't' && /^\d{1,12}$/.test(val))
            t = Number(val);
        // Several v1 entries may come while a secret is being rotated: any one may match.
        if (key === 'v1' && /^[0-9a-f]{64}$/i.test(val))
            v1.push(val.toLowerCase());
    }
    return t === null || v1.length === 0 ? null : { t, v1 };
}
function expectedSignature(secret, t, rawBody) {
    const hmac = (0, node_crypto_1.createHmac)('sha256', secret).update(`${t}.`, 'utf8');
    // Bytes are signed as received; a string is taken as the UTF-8 text of the body.
    if (typeof rawBody === 'string')
        hmac.update(rawBody, 'utf8');
    else
        hmac.update(rawBody);
    return hmac.digest();
}
/**
 * Checks one delivery: the HMAC of `<t>.<raw body>` (constant-time), then `t` within the tolerance
 * of now in either direction, so a captured delivery cannot be replayed later.
 *
 *   const check = verifyWebhook(req.body, req.get('svc-signature'), process.env.SVC_WEBHOOK_SECRET!);
 *   if (!check.ok) return res.status(400).send(check.reason);
 */
function verifyWebhook(rawBody, signatureHeader, secret, options = {}) {
    const parsed = parseHeader(signatureHeader);
    if (!parsed)
        return { ok: false, reason: 'missing_signature' };
    const expected = expectedSignature(secret, parsed.t, rawBody);
    const matches = parsed.v1.some((hex) => {
        const given = Buffer.from(hex, 'hex');
        return given.length === expected.length && (0, node_crypto_1.timingSafeEqual)(given, expected);
    });
    if (!matches)
        return { ok: false, reason: 'bad_signature' };
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const tolerance = options.toleranceSeconds ?? exports.DEFAULT_TOLERANCE_SECONDS;
    if (now - parsed.t > tolerance)
        return { ok: false, reason: 'stale_timestamp' };
    if (parsed.t - now > tolerance)
        return { ok: false, reason: 'future_timestamp' };
    return { ok: true };
}
