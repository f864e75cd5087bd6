import { index, integer, numeric, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

// A payout is recorded before it is signed, and its signed transaction (nonce, raw
// bytes, hash) before it is broadcast, so a worker that crashes anywhere finds the same transaction
// and sends it again rather than a second one. One row per (payment, kind, exception, attempt): a
// retried plan writes nothing twice. The receipt decides the status; nothing is assumed from a broadcast.
export const payouts = pgTable(
  'payouts',
  {
    // po_ + 24 base62.
    id: text('id').primaryKey(),
    paymentId: text('payment_id').notNull(),
    // Every payout is sent by the treasury (docs/settlement.md). sweep: a call of the network's
    // sweeper that moves many deposits' money to the treasury; merchant: one transfer of a merchant's
    // balance for many payments; for both, payout_items names the payments and payment_id is the
    // row's own id. refund: an exception's money back from its deposit (the sweeper's `forward`) to
    // the address an operator gave (docs/settlement.md); customer: a simple order's stablecoin forwarded
    // from its deposit to the customer's wallet (payment_id is its transaction code);
    // payment_refund: a completed payment's refund from the treasury, drawn from the merchant's
    // balance (refund_id names it).
    kind: text('kind', {
      enum: ['merchant', 'refund', 'customer', 'payment_refund', 'sweep'],
    }).notNull(),
    // Set on a refund: the exception whose money moves. Null for the payment's
    // own payouts, so a payment's settlement and each of its refunds are planned once each.
    exceptionId: text('exception_id'),
    // Set on a completed payment's refund (payment_refunds.id): part of the plan's key, so each refund
    // of a payment is planned once and two partial refunds are two rows.
    refundId: text('refund_id'),
    // Which of an exception's refunds the row belongs to (1 for a payment's own payouts). A refund
    // whose transfer failed stays as it was sent (failed, with its reason, for an operator) and the
    // next refund of the same money is planned as attempt + 1: only the latest attempt is live.
    attempt: integer('attempt').notNull().default(1),
    network: text('network').notNull(),
    // USDC | USDT.
    asset: text('asset').notNull(),
    // The token contract (checksummed).
    token: text('token'),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    // A contract call's calldata (a sweep: to_address is the sweeper); null for a plain transfer of `token`.
    callData: text('call_data'),
    // Token micro units.
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    // Fixed when planned (a forward's), or at its first signing: every retry signs with these.
    gasLimit: numeric('gas_limit', { precision: 78, scale: 0 }),
    maxFeePerGas: numeric('max_fee_per_gas', { precision: 78, scale: 0 }),
    maxPriorityFeePerGas: numeric('max_priority_fee_per_gas', { precision: 78, scale: 0 }),
    nonce: integer('nonce'),
    signedTx: text('signed_tx'),
    // Lowercase 0x hash of signedTx.
    txHash: text('tx_hash'),
    // Hashes of earlier signatures whose nonce another transaction of the sender took (never minable).
    replacedHashes: text('replaced_hashes').array().notNull().default([]),
    status: text('status', { enum: ['planned', 'signed', 'broadcast', 'confirmed', 'failed'] })
      .notNull()
      .default('planned'),
    blockNumber: numeric('block_number', { precision: 78, scale: 0 }),
    // Wei the transaction cost its sender (receipt's gasUsed × effectiveGasPrice).
    feeWei: numeric('fee_wei', { precision: 78, scale: 0 }),
    failureReason: text('failure_reason'),
    // A failed settlement row (sweep, merchant) that no longer waits for an operator: one retried it
    // (the next run plans its payments again), or a later row of the same kind carried its payments.
    clearedAt: timestamp('cleared_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    signedAt: timestamp('signed_at', { withTimezone: true }),
    broadcastAt: timestamp('broadcast_at', { withTimezone: true }),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  },
  (t) => [
    unique('payouts_payment_kind_exception_refund_attempt_unique')
      .on(t.paymentId, t.kind, t.exceptionId, t.refundId, t.attempt)
      .nullsNotDistinct(),
    // Two signed transactions of one sender never share a nonce: what makes nextFreeNonce's choice without a lock safe.
    unique('payouts_sender_nonce_unique').on(t.network, t.fromAddress, t.nonce),
    index('payouts_status_idx').on(t.status),
    // A merchant searching their payments by a payout's hash.
    index('payouts_tx_hash_idx').on(t.txHash),
  ],
);

// Batched settlement (docs/settlement.md): what one chain transaction settles. A sweep's items are the
// deposits it moves (a payment's deposit address and the gross it holds); a batched merchant payout's
// are the payments it pays (each one's share). Planned in the transaction that writes the payout, under
// the network's settlement lock, so a payment is in at most one live sweep and one live payout.
export const payoutItems = pgTable(
  'payout_items',
  {
    payoutId: text('payout_id')
      .notNull()
      .references(() => payouts.id),
    paymentId: text('payment_id').notNull(),
    // A sweep's: the deposit address and its index (the forwarder's salt).
    depositAddress: text('deposit_address'),
    depositIndex: integer('deposit_index'),
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.payoutId, t.paymentId] }), index('payout_items_payment_idx').on(t.paymentId)],
);
