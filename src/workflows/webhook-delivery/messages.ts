// Shared by the workflow and the code that starts it (the payment workflows, and an operator's resend).

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDelivery';

export interface WebhookDeliveryInput {
  deliveryId: string;
  retry: { baseSeconds: number; maxIntervalSeconds: number; windowHours: number };
}
