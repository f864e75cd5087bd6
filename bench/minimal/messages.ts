import { defineSignal } from '@temporalio/workflow';

// The minimal implementation: the same business (a payment that completes from a
// confirmed on-chain credit and tells the merchant with a signed webhook) in the fewest Temporal
// actions we can think of. Its numbers are the floor ours is measured against.

export const MINIMAL_PAYMENT_WORKFLOW = 'minimalPayment';
export const RAW_DELIVERY_WORKFLOW = 'rawDelivery';

/** The bench merchant's settlement wallet (ours' merchant is made with it): where both sides pay the merchant's share. */
export const BENCH_MERCHANT_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

export interface MinimalPaymentInput {
  paymentId: string;
  expectedMicro: string;
  webhookUrl: string;
  /**
   * Pays the money out once completed, as ours does: the like-for-like baseline of
   * the payout figures. Without it, the payment ends at payment.completed.
   */
  payOut?: boolean;
}

/** The provider's word: a hint that moves the payment to processing. */
export const providerFact = defineSignal<[{ kind: 'processing' | 'succeeded'; reference: string }]>('providerFact');
/** A confirmed Transfer to the payment's deposit address (the watcher's fact); keyed by log. */
export const depositCredit = defineSignal<[{ key: string; amountMicro: string }]>('depositCredit');

export interface WebhookPost {
  url: string;
  eventId: string;
  body: string;
}
