/** The names of every signed event, in the order of the document. */
export const WEBHOOK_EVENT_TYPES = [
    'payment.processing',
    'payment.completed',
    'payment.failed',
    'payment.expired',
    'payment.canceled',
    'payment.settled',
    'payment.exception',
    'payment.refunded',
    'webhook.test',
];
