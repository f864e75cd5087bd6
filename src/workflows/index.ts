// Entry of the workflow bundle: every workflow type the worker runs is exported from here.
// Workflow code is deterministic: it imports only @temporalio/workflow, pure domain code, and
// `import type` of activities (eslint enforces this under src/workflows/).
export { checkoutSession } from './checkout-session/workflow';
export { webhookDelivery } from './webhook-delivery/workflow';
export { paymentLink } from './payment-link/workflow';
export { simpleOrder } from './simple-order/workflow';
export { paymentException } from './payment-exception/workflow';
export { paymentRefund } from './payment-refund/workflow';
export { settlementRun } from './settlement/workflow';
