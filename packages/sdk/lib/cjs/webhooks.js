"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.parseWebhook = parseWebhook;
exports.newSigningSecret = newSigningSecret;
exports.signDelivery = signDelivery;
const node_crypto_1 = require("node:crypto");
const verify_webhook_js_1 = require("./verify-webhook.js");
// Receiving webhooks: parseWebhook verifies a delivery and types its body as the union of every
// signed event. Signing (for `listen`, which re-signs what it forwards with its own secret) is the
// service's scheme, written again here so that the package needs nothing of the service's code.
/**
 * Verifies a delivery on its raw body (svc-signature, with the verifier's timestamp tolerance) and
 * returns its event, typed as the union of every event: `switch (check.event.event)` narrows it.
 * `{ ok: false, reason }` when the signature does not hold.
 */
function parseWebhook(rawBody, signatureHeader, secret, options) {
    const check = (0, verify_webhook_js_1.verifyWebhook)(rawBody, signatureHeader, secret, options);
    if (!check.ok)
        return check;
    const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
    return { ok: true, event: JSON.parse(text) };
}
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A signing secret shaped as the service's (`whsec_` + 32 base62), so the Standard Webhooks headers apply too. */
function newSigningSecret() {
    let s = 'whsec_';
    for (let i = 0; i < 32; i++)
        s += BASE62[(0, node_crypto_1.randomInt)(BASE62.length)];
    return s;
}
// The base64 part of a whsec_ secret, as Standard Webhooks keys its HMAC.
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;
/**
 * The signature headers of one delivery, as the service sends them: `svc-signature` (HMAC-SHA256 of
 * `<t>.<body>`, hex) and, for a standard-shaped secret, Standard Webhooks' `webhook-*` trio.
 */
function signDelivery(secret, eventId, timestamp, rawBody) {
    const v1 = (0, node_crypto_1.createHmac)('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
    const headers = { 'svc-signature': `t=${timestamp},v1=${v1}`, 'svc-timestamp': String(timestamp) };
    const standard = STANDARD_SECRET.exec(secret);
    if (standard) {
        const key = Buffer.from(standard[1], 'base64');
        headers['webhook-id'] = eventId;
        headers['webhook-timestamp'] = String(timestamp);
        headers['webhook-signature'] = `v1,${(0, node_crypto_1.createHmac)('sha256', key).update(`${eventId}.${timestamp}.${rawBody}`, 'utf8').digest('base64')}`;
    }
    return headers;
}
