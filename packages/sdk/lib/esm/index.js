// svc-checkout-sdk: the merchants' Node client of the svc checkout API v1 and its webhooks.
export { createSvcClient } from './client.js';
export { CheckoutApiError, isCheckoutApiError } from './errors.js';
export { LIST_ITEMS } from './lists.js';
export { WEBHOOK_EVENT_TYPES } from './events.js';
export { parseWebhook } from './webhooks.js';
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from './verify-webhook.js';
export { listen, ListenRefused } from './listen.js';
