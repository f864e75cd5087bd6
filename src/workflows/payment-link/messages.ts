import { defineQuery, defineSignal } from '@temporalio/workflow';

// Definitions shared by the payment-link workflow and the code that signals it.

export const PAYMENT_LINK_WORKFLOW = 'paymentLink';

export interface PaymentLinkInput {
  linkId: string;
  /** ISO timestamp; the link expires then unless a session paid it. */
  expiresAt: string;
}

import type { PaymentLinkStatus } from '../../domain/payment-link';

export type { PaymentLinkStatus };

export interface PaymentLinkOutcome {
  status: PaymentLinkStatus;
  /** The checkout session that paid the link, when it was paid and said so. */
  paidSessionId: string | null;
}

/** Sent once a session of the link completed and the link was marked paid in Postgres. */
export const linkPaidSignal = defineSignal<[{ sessionId: string }]>('linkPaid');
/** Sent once the merchant deactivated the link in the dashboard and Postgres marked it expired. */
export const linkDeactivatedSignal = defineSignal('linkDeactivated');
export const linkStateQuery = defineQuery<PaymentLinkOutcome>('linkState');
