import { z } from 'zod';
import { PAYMENT_STATUSES, SIMPLE_ORDER_STATUSES } from '../../../domain/payment-status';

// What operators see of a payment that the dashboard shows its merchant too: a refund of it, and what
// proves it on chain. Zod and domain lists only, so the dashboard takes their types without a route.

/** A completed payment's refund. */
export const refundView = z
  .object({
    id: z.string().describe('rf_…; also the id of the run that sends it'),
    paymentId: z.string(),
    amount: z.string().describe('6 decimals'),
    asset: z.string(),
    network: z.string(),
    address: z.string().describe('Where the money goes (EIP-55)'),
    status: z.enum(['requested', 'refunded', 'failed']),
    failureReason: z.string().nullable(),
    transactionHash: z.string().nullable().describe('The confirmed transfer'),
    explorerUrl: z.string().nullable(),
    requestedBy: z.string().describe('admin, or dashboard:<user id>'),
    createdAt: z.string(),
    refundedAt: z.string().nullable(),
  })
  .meta({
    examples: [
      {
        id: 'rf_5Kp8Wq2Zx7Cv1Bn4Mh9Jd3Ls',
        paymentId: 'SV_4f9a1c2b7d8e6f5a4b3c2d1e',
        amount: '10.000000',
        asset: 'USDC',
        network: 'polygon',
        address: '0x8Ba1f109551bD432803012645Ac136ddd64DBA72',
        status: 'requested',
        failureReason: null,
        transactionHash: null,
        explorerUrl: null,
        requestedBy: 'admin',
        createdAt: '2026-01-16T09:12:00.000Z',
        refundedAt: null,
      },
    ],
  });

/** One log recorded at a payment's deposit address (the dashboard's proof adds its explorer link). */
export const proofCreditView = z.object({
  transactionHash: z.string(),
  logIndex: z.number(),
  token: z.string(),
  asset: z.string().nullable(),
  amount: z.string(),
  blockNumber: z.string(),
  confirmations: z.string().nullable(),
  state: z.string(),
});

/** What proves a payment on chain: the operator's view; the dashboard shows it without the ids. */
export const proofView = z.object({
  paymentId: z.string(),
  kind: z.enum(['checkout_session', 'simple_order']),
  status: z.string().meta({
    description: 'The checkout session’s or the simple order’s status.',
    enum: [...new Set([...PAYMENT_STATUSES, ...SIMPLE_ORDER_STATUSES])],
    examples: ['completed'],
  }),
  verification: z.enum(['chain', 'provider']),
  network: z.string(),
  asset: z.string(),
  depositAddress: z.string().nullable(),
  expectedGross: z.string().nullable(),
  credited: z.string(),
  chain: z
    .object({ chainId: z.number(), token: z.string(), head: z.string(), confirmationsRequired: z.number(), balance: z.string() })
    .nullable(),
  chainError: z.string().nullable(),
  credits: z.array(proofCreditView),
});
