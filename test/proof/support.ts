import type { Address } from 'viem';
import { expect } from 'vitest';
import { createApprovedMerchant, type TestContext } from '../support/harness';
import { eventually, http } from '../support/http';
export { payFromWallet } from '../support/chain';

// Shared steps of the proof-of-payment tests: a merchant with a wallet on every EVM network, a
// session, its deposit address and expected gross as stored, a customer paying from a wallet.

export const EVM_WALLETS = ['polygon', 'ethereum', 'base', 'arbitrum'].map((network) => ({
  asset: 'USDC',
  network,
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
}));

export async function merchantOnEveryNetwork(ctx: TestContext) {
  return createApprovedMerchant(ctx.app, { name: 'Proof Shop', commissionBps: 100, wallets: EVM_WALLETS });
}

export async function openSession(ctx: TestContext, apiKey: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', ...body },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession.id as string;
}

export async function sessionRow(ctx: TestContext, id: string) {
  const [row] = await ctx.db
    .sql`select status, verification, deposit_address, wallet_address, expected_gross_micro from checkout_sessions where id = ${id}`;
  return {
    status: row!.status as string,
    verification: row!.verification as string,
    depositAddress: row!.deposit_address as Address,
    walletAddress: row!.wallet_address as string,
    expectedGross: row!.expected_gross_micro === null ? null : BigInt(row!.expected_gross_micro as string),
  };
}

/** The customer presses Pay on the hosted page: G is fixed from the provider's quote. */
export async function pressPay(ctx: TestContext, id: string): Promise<bigint> {
  const start = await http('POST', `${ctx.baseUrl}/pay/${id}/start`);
  expect(start.status).toBe(303);
  return (await sessionRow(ctx, id)).expectedGross!;
}

export const waitForStatus = (ctx: TestContext, id: string, status: string, timeoutMs = 20_000) =>
  eventually(
    () => sessionRow(ctx, id).then((r) => r.status),
    (s) => s === status,
    timeoutMs,
    `${id} to be ${status}`,
  );

export async function exceptionsOf(ctx: TestContext, id: string) {
  const rows = await ctx.db
    .sql`select id, kind, amount_micro, "references", status from payment_exceptions where payment_id = ${id} order by created_at`;
  return rows.map((r) => ({
    id: r.id as string,
    kind: r.kind as string,
    amount: BigInt(r.amount_micro as string),
    references: r.references as Record<string, unknown>,
    status: r.status as string,
  }));
}

export async function creditsOf(ctx: TestContext, id: string) {
  const rows = await ctx.db
    .sql`select network, transaction_hash, log_index, amount_micro, state from chain_credits where payment_id = ${id}`;
  return rows.map((r) => ({
    network: r.network as string,
    hash: r.transaction_hash as string,
    logIndex: r.log_index as number,
    amount: BigInt(r.amount_micro as string),
    state: r.state as string,
  }));
}
