// The event types of merchant webhooks, in a module of their own with no imports: the dashboard's
// bundle uses the same list as the service (the endpoint form's choices).

/** The v1 webhook event names: what a merchant's endpoint may choose to receive. */
export const WEBHOOK_EVENT_TYPES = [
  'payment.processing',
  'payment.completed',
  'payment.failed',
  'payment.expired',
  'payment.canceled',
  'payment.settled',
  'payment.exception',
  'payment.refunded',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** An endpoint's choice of event types: null (no choice made) receives every event. */
export const endpointWants = (eventTypes: readonly string[] | null, type: string): boolean =>
  eventTypes === null || eventTypes.includes(type);

/**
 * The test event a merchant sends to one endpoint from the dashboard, signed like every other. It
 * belongs to no payment: its event row and delivery name the endpoint where a payment id would be.
 */
export const TEST_EVENT_TYPE = 'webhook.test';
