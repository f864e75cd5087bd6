import { z } from 'zod';
import { PAYOUT_SCHEDULES } from '../../../domain/balances';
import { ok } from './ok';

// The merchant's money as the dashboard reads it (routes in ../money.ts): payouts, settlements, the
// home figures and the payout settings; wallets are the operators' view (../../routes/admin/merchant-views.ts).

export const merchantPayoutView = z.object({
  id: z.string(),
  paymentId: z.string(),
  status: z.string(),
  asset: z.string(),
  network: z.string(),
  amount: z.string(),
  toAddress: z.string(),
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  confirmedAt: z.string().nullable(),
  // What the payout paid: each payment and the merchant's share of it the payout carried.
  payments: z.array(z.object({ paymentId: z.string(), amount: z.string() })),
});

export const settlementView = z.object({
  paymentId: z.string(),
  asset: z.string(),
  network: z.string(),
  gross: z.string(),
  commission: z.string(),
  net: z.string(),
  depositTransactionHash: z.string().nullable(),
  payoutTransactionHash: z.string(),
  completedAt: z.string().nullable(),
  settledAt: z.string(),
  orderId: z.string().nullable(),
});

/** Volume per asset (6 decimals) and how many payments made it. */
export const volumeTotalView = z.object({ byAsset: z.record(z.string(), z.string()), payments: z.number().int() });

export const homeView = z.object({
  ok,
  today: volumeTotalView,
  month: volumeTotalView,
  days: z.array(volumeTotalView.extend({ day: z.string() })),
  byStatus: z.record(z.string(), z.number().int()),
  openExceptions: z.number().int(),
});

// Batched settlement (docs/settlement.md): the balance, and when and how much payouts pay.
export const payoutSettingsView = z.object({
  ok,
  schedule: z.enum(PAYOUT_SCHEDULES),
  minimum: z.string(),
  requestedAt: z.string().nullable(),
  balances: z.array(
    z.object({
      network: z.string(),
      asset: z.string(),
      pending: z.string(),
      available: z.string(),
      reserved: z.string(),
      outgoing: z.string(),
      nextPayoutAt: z.string().nullable(),
      payoutDue: z.boolean(),
      payoutRequested: z.boolean(),
    }),
  ),
  // When a run may pay next (domain/next-payout.ts): payoutDue, the next run may (within
  // payoutIntervalSeconds; nextPayoutAt is then this answer's time); else a UTC midnight, or null
  // (manual: only when asked). payoutRequested: asked for since the last payout, so whatever the
  // minimum. The earliest of the balances'.
  nextPayoutAt: z.string().nullable(),
  payoutDue: z.boolean(),
  payoutRequested: z.boolean(),
  payoutIntervalSeconds: z.number().int(),
  // Where the merchant sends money to its own balance, one per network (docs/settlement.md).
  topUpAddresses: z.array(z.object({ network: z.string(), address: z.string() })),
});
