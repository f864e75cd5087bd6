import type { Address } from 'viem';
import { expect } from 'vitest';
import type { TestContext } from '../support/harness';
import { eventually, http } from '../support/http';

// Simple-API orders on the chain rail: open one, choose its rail, read its row.

export const CUSTOMER_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

export async function openOrder(ctx: TestContext, body: Record<string, unknown> = {}, network = 'POLYGON'): Promise<string> {
  const customer = { wallet_address: CUSTOMER_WALLET, crypto_currency: 'USDC', crypto_currency_network: network };
  const res = await http('POST', `${ctx.baseUrl}/api/checkout`, { body: { fiat_amount: 25, fiat_currency: 'USD', customer, ...body } });
  expect(res.status).toBe(201);
  return res.json.data.transaction_code as string;
}

/** The customer chooses a rail (G is fixed then); answers the instructions. */
export async function chooseRail(ctx: TestContext, code: string, slug: string) {
  const res = await http('GET', `${ctx.baseUrl}/api/payment_link?transaction_code=${code}&payment_method=${slug}`);
  expect(res.status).toBe(200);
  return res.json.data;
}

export async function orderRow(ctx: Pick<TestContext, 'db'>, code: string) {
  const [row] = await ctx.db.sql`
    select status, verification, chain_deposit_address, wallet_address, expected_gross_micro, received_micro,
           deposit_transaction_hash, transaction_hash, payout_dispatched, failure_reason
    from simple_orders where transaction_code = ${code}`;
  const big = (v: unknown) => (v === null ? null : BigInt(v as string));
  return {
    status: row!.status as string,
    verification: row!.verification as string,
    depositAddress: row!.chain_deposit_address as Address,
    walletAddress: row!.wallet_address as string,
    expectedGross: big(row!.expected_gross_micro),
    received: big(row!.received_micro),
    depositTransactionHash: row!.deposit_transaction_hash as string | null,
    transactionHash: row!.transaction_hash as string | null,
    payoutDispatched: row!.payout_dispatched as boolean,
    failureReason: row!.failure_reason as string | null,
  };
}

export const waitForOrder = (ctx: TestContext, code: string, status: string, timeoutMs = 20_000) =>
  eventually(
    () => orderRow(ctx, code).then((r) => r.status),
    (s) => s === status,
    timeoutMs,
    `${code} to be ${status}`,
  );

export async function exceptionRows(ctx: Pick<TestContext, 'db'>, code: string) {
  const rows = await ctx.db
    .sql`select id, payment_kind, kind, status, amount_micro, "references" from payment_exceptions where payment_id = ${code} order by created_at`;
  return rows.map((r) => ({
    id: r.id as string,
    paymentKind: r.payment_kind as string,
    kind: r.kind as string,
    status: r.status as string,
    amount: BigInt(r.amount_micro as string),
    references: r.references as Record<string, unknown>,
  }));
}

/** Once the payout of a settled order is confirmed (the customer's, forwarded from its deposit; the fee stays there): its rows. */
export async function waitForOrderPayouts(ctx: Pick<TestContext, 'db'>, code: string, timeoutMs = 60_000) {
  const rows = await eventually(
    () =>
      ctx.db
        .sql`select kind, status, amount::text as amount, tx_hash, to_address, from_address from payouts where payment_id = ${code} order by kind`,
    (r) => r.length > 0 && r.every((p) => p.status === 'confirmed') && r.some((p) => p.kind === 'customer'),
    timeoutMs,
    `the payouts of ${code} confirmed`,
  );
  return rows.map((r) => ({
    kind: r.kind as string,
    amount: BigInt(r.amount as string),
    txHash: r.tx_hash as string,
    to: r.to_address as string,
    from: r.from_address as string,
  }));
}

/** Once a settlement run has swept the order's network fee from its deposit address into the treasury. */
export async function waitForOrderFeeSwept(ctx: Pick<TestContext, 'db'>, code: string, timeoutMs = 60_000) {
  await eventually(
    () =>
      ctx.db
        .sql`select p.status from payout_items i join payouts p on p.id = i.payout_id where i.payment_id = ${code} and p.kind = 'sweep'`,
    (rows) => rows.some((r) => r.status === 'confirmed'),
    timeoutMs,
    `the network fee of ${code} swept`,
  );
}
