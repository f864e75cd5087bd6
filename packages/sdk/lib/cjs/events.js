"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WEBHOOK_EVENT_TYPES = void 0;
/** The names of every signed event, in the order of the document. */
exports.WEBHOOK_EVENT_TYPES = [
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
