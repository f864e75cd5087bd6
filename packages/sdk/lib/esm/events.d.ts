import type { webhooks } from './schema.js';
type Body<K extends keyof webhooks> = webhooks[K]['post']['requestBody']['content']['application/json'];
/** The body of K narrowed to one `event` name, so that `event` tells the members of the union apart. */
type Named<T, E extends string> = T extends {
    event: infer V;
} ? (E extends V ? Omit<T, 'event'> & {
    event: E;
} : never) : never;
/** `payment.processing`, a body of the document's `payment.event` webhook: A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled) */
export type PaymentProcessingEvent = Named<Body<'payment.event'>, 'payment.processing'>;
/** `payment.completed`, a body of the document's `payment.event` webhook: A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled) */
export type PaymentCompletedEvent = Named<Body<'payment.event'>, 'payment.completed'>;
/** `payment.failed`, a body of the document's `payment.event` webhook: A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled) */
export type PaymentFailedEvent = Named<Body<'payment.event'>, 'payment.failed'>;
/** `payment.expired`, a body of the document's `payment.event` webhook: A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled) */
export type PaymentExpiredEvent = Named<Body<'payment.event'>, 'payment.expired'>;
/** `payment.canceled`, a body of the document's `payment.event` webhook: A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled) */
export type PaymentCanceledEvent = Named<Body<'payment.event'>, 'payment.canceled'>;
/** `payment.settled`, a body of the document's `payment.event` webhook: A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled) */
export type PaymentSettledEvent = Named<Body<'payment.event'>, 'payment.settled'>;
/** `payment.exception`, a body of the document's `payment.exception` webhook: Money arrived off the happy path (late, duplicate, overpaid, underpaid, unverified, wrong asset, reorged) */
export type PaymentExceptionEvent = Named<Body<'payment.exception'>, 'payment.exception'>;
/** `payment.refunded`, a body of the document's `payment.refunded` webhook: Money was sent back on chain: an exception’s, or a refund of a completed payment */
export type PaymentRefundedEvent = Named<Body<'payment.refunded'>, 'payment.refunded'>;
/** `webhook.test`, a body of the document's `webhook.test` webhook: A test event, sent from the dashboard to one endpoint */
export type WebhookTestEvent = Named<Body<'webhook.test'>, 'webhook.test'>;
/** `transaction.settled`, a body of the document's `transaction.settled` webhook: A simple-API order settled */
export type TransactionSettledEvent = Named<Body<'transaction.settled'>, 'transaction.settled'>;
/** Every event the service signs and POSTs to your webhook endpoints; `switch (e.event)` narrows it. */
export type WebhookEvent = PaymentProcessingEvent | PaymentCompletedEvent | PaymentFailedEvent | PaymentExpiredEvent | PaymentCanceledEvent | PaymentSettledEvent | PaymentExceptionEvent | PaymentRefundedEvent | WebhookTestEvent;
export type WebhookEventType = WebhookEvent['event'];
/** The names of every signed event, in the order of the document. */
export declare const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[];
/** Callbacks POSTed unsigned (the simple API’s), outside WebhookEvent: parseWebhook never returns them. */
export type UnsignedCallback = TransactionSettledEvent;
export {};
