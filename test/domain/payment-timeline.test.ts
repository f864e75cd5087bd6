import { describe, expect, it } from 'vitest';
import { paymentTimeline, type TimelineInput } from '../../src/domain/payment-timeline';

// The words and order of a payment's timeline, without I/O.
const t = (s: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, s));
const HASH = `0x${'ab'.repeat(32)}`;
const REFUND_HASH = `0x${'cd'.repeat(32)}`;

const input = (over: Partial<TimelineInput> = {}): TimelineInput => ({
  session: { createdAt: t(0), payPressedAt: t(5), provider: 'sandbox', railType: 'fiat_to_crypto', asset: 'USDC', network: 'polygon' },
  providerFacts: [{ type: 'payment.processing', receivedAt: t(8), state: 'signaled', note: null }],
  credits: [
    {
      transactionHash: HASH,
      amountMicro: 25_000_000n,
      state: 'credited',
      createdAt: t(10),
      asset: 'USDC',
      fromAddress: '0xsender',
      blockNumber: 100n,
    },
  ],
  events: [
    { id: 'evt_1', type: 'payment.completed', subject: '', createdAt: t(10) },
    { id: 'evt_2', type: 'payment.exception', subject: 'exc_1', createdAt: t(30) },
  ],
  payouts: [
    {
      id: 'po_1',
      kind: 'merchant',
      status: 'confirmed',
      amount: '24625000',
      toAddress: '0xwallet',
      txHash: HASH.replace('ab', 'ef'),
      exceptionId: null,
      failureReason: null,
      createdAt: t(11),
      confirmedAt: t(14),
    },
    {
      id: 'po_2',
      kind: 'refund',
      status: 'failed',
      amount: '3000000',
      toAddress: '0xcustomer',
      txHash: REFUND_HASH,
      exceptionId: 'exc_1',
      failureReason: 'reverted',
      createdAt: t(40),
      confirmedAt: null,
    },
  ],
  exceptions: [{ id: 'exc_1', kind: 'duplicate', amountMicro: 3_000_000n, status: 'open', createdAt: t(30), resolvedAt: null }],
  deliveries: [
    {
      id: 'dlv_1',
      eventId: 'evt_1',
      eventType: 'payment.completed',
      url: 'https://shop.example/h',
      status: 'failed',
      createdAt: t(10),
      attempts: 1,
    },
  ],
  head: 104n,
  explorer: (hash) => `https://explorer.example/tx/${hash}`,
  ...over,
});

describe('paymentTimeline', () => {
  it('orders every fact oldest first, and at the same instant in the order a payment lives', () => {
    const entries = paymentTimeline(input());
    expect(entries.map((e) => [e.kind, e.title])).toEqual([
      ['created', 'Checkout session created'],
      ['pay_pressed', 'The customer pressed Pay'],
      ['provider', 'Provider: payment.processing'],
      ['credit', 'Transfer of 25.00 USDC arrived'],
      ['status', 'Completed: the money is proven on chain'],
      ['webhook', 'Webhook payment.completed'],
      ['payout', 'Payout to your wallet: 24.625 USDC'],
      ['exception', 'Exception (duplicate): 3.00'],
      ['refund', 'Refund to the customer: 3.00 USDC'],
    ]);
  });

  it('counts confirmations from the head, links confirmed transfers only, and says why a transfer failed', () => {
    const entries = paymentTimeline(input());
    const credit = entries.find((e) => e.kind === 'credit')!;
    expect(credit).toMatchObject({ confirmations: '5', transactionHash: HASH, explorerUrl: `https://explorer.example/tx/${HASH}` });
    expect(credit.detail).toBe('from 0xsender: credited to the payment');
    const refund = entries.find((e) => e.kind === 'refund')!;
    expect(refund).toMatchObject({ transactionHash: null, explorerUrl: null, detail: 'failed: reverted', ref: 'exc_1' });
    expect(entries.find((e) => e.kind === 'webhook')).toMatchObject({
      ref: 'dlv_1',
      detail: 'failed after 1 attempt, to https://shop.example/h',
    });
    // Without a head read, no confirmations are claimed; a head behind the block claims none either.
    expect(paymentTimeline(input({ head: null })).find((e) => e.kind === 'credit')!.confirmations).toBeNull();
    expect(paymentTimeline(input({ head: 99n })).find((e) => e.kind === 'credit')!.confirmations).toBeNull();
  });

  it('shows a resolved exception’s resolution, and no Pay for a wallet payment', () => {
    const entries = paymentTimeline(
      input({
        session: { ...input().session, payPressedAt: null, railType: 'crypto_transfer' },
        exceptions: [{ id: 'exc_1', kind: 'late', amountMicro: 1n, status: 'refunded', createdAt: t(30), resolvedAt: t(50) }],
      }),
    );
    expect(entries.some((e) => e.kind === 'pay_pressed')).toBe(false);
    expect(entries.at(-1)).toMatchObject({
      kind: 'exception_resolved',
      title: 'Exception refunded',
      ref: 'exc_1',
      at: t(50).toISOString(),
    });
  });
});
