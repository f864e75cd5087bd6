// svc-checkout-sdk: the merchants' Node client of the svc checkout API v1 and its webhooks.

export { createSvcClient } from './client.js';
export type { ListItem, ListQuery, SvcClient, SvcClientOptions, SvcResult } from './client.js';
export { CheckoutApiError, isCheckoutApiError } from './errors.js';
export type { CheckoutApiErrorDetail, ClientErrorCode } from './errors.js';
export type { PerRequestOptions, RetryOptions } from './transport.js';
export { LIST_ITEMS } from './lists.js';
export type { ListPath } from './lists.js';
export { WEBHOOK_EVENT_TYPES } from './events.js';
export type * from './events.js';
export { parseWebhook } from './webhooks.js';
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from './verify-webhook.js';
export type { VerifyFailure, VerifyOptions, VerifyResult } from './verify-webhook.js';
export { listen, ListenRefused } from './listen.js';
export type { ListenOptions } from './listen.js';
export type { components, paths, webhooks } from './schema.js';
