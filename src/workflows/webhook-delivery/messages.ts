// Shared by the workflow and the code that starts it (the payment workflows, and an operator's resend).

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDelivery';

export interface WebhookDeliveryInput {
  deliveryId: string;
  retry: { baseSeconds: number; maxIntervalSeconds: number; windowHours: number };
  /** An operator's resend during backoff: one attempt now, beside the schedule, never marking the delivery failed. */
  once?: boolean;
  /** The emitting activity made the first attempt, which failed: the schedule goes on from its first interval. */
  afterFirstAttempt?: boolean;
}
