import { sql } from 'drizzle-orm';
import { bigint, check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { PAYOUT_SCHEDULES } from '../../domain/balances';

export const MERCHANT_STATUSES = ['pending_review', 'approved', 'suspended'] as const;
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number];

export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    status: text('status', { enum: MERCHANT_STATUSES }).notNull().default('pending_review'),
    commissionBps: integer('commission_bps').notNull().default(100),
    securityCodeHash: text('security_code_hash').notNull(),
    // Signs deliveries to a session's own webhookUrl; encrypted with SECRETS_KEY.
    webhookSecretEncrypted: text('webhook_secret_encrypted'),
    securityCodeRotatedAt: timestamp('security_code_rotated_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    // The live key issued at approval, encrypted with SECRETS_KEY, until the dashboard
    // has shown it to the merchant once (then null). Only merchants who signed up have it.
    liveKeyToRevealEncrypted: text('live_key_to_reveal_encrypted'),
    // Batched settlement (docs/settlement.md): when the merchant's available balance is paid out
    // (instant, daily, weekly, manual), the least a payout pays, and a payout asked for now.
    payoutSchedule: text('payout_schedule', { enum: PAYOUT_SCHEDULES }).notNull().default('instant'),
    payoutMinimumMicro: bigint('payout_minimum_micro', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    payoutRequestedAt: timestamp('payout_requested_at', { withTimezone: true }),
    // What a settlement run keeps back in the merchant's reserve, per network and asset, before it
    // pays out: money for refunds, set by an operator (a merchant that refunds often, or a new one).
    reserveTargetMicro: bigint('reserve_target_micro', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
  },
  (t) => [
    check('merchants_status_check', sql`${t.status} in ('pending_review', 'approved', 'suspended')`),
    check('merchants_commission_check', sql`${t.commissionBps} between 0 and 10000`),
    check('merchants_payout_schedule_check', sql`${t.payoutSchedule} in ('instant', 'daily', 'weekly', 'manual')`),
    check('merchants_payout_minimum_check', sql`${t.payoutMinimumMicro} >= 0`),
    check('merchants_reserve_target_check', sql`${t.reserveTargetMicro} >= 0`),
  ],
);
