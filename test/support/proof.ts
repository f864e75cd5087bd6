import type { Address } from 'viem';
import { expect } from 'vitest';
import { parseCrypto } from '../../src/domain/money';
import { payFromWallet, sharedChain } from './chain';
import type { TestContext } from './harness';

// Proof of payment for tests whose subject is something else (webhooks, plugins): the provider
// delivers to the session's deposit address, and only a transfer there completes the session.

/** The session's deposit address: what a provider's callback names as the wallet it delivers to. */
export async function depositAddressOf(ctx: Pick<TestContext, 'db'>, id: string): Promise<Address> {
  const [row] = await ctx.db.sql`select deposit_address from checkout_sessions where id = ${id}`;
  return row!.deposit_address as Address;
}

/** A simple order's deposit address: what a provider's callback names as the wallet it delivers to. */
export async function orderDepositAddressOf(ctx: Pick<TestContext, 'db'>, code: string): Promise<Address> {
  const [row] = await ctx.db.sql`select chain_deposit_address from simple_orders where transaction_code = ${code}`;
  return row!.chain_deposit_address as Address;
}

/** The customer pays the session from a wallet (the direct rail; the sandbox must run, its quote is G). */
export async function payDirect(ctx: Pick<TestContext, 'app'>, id: string, chain = sharedChain()) {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${id}/deposit` });
  expect(res.statusCode).toBe(200);
  const { address, amount, network } = res.json().deposit;
  return payFromWallet(chain, chain.tokens[network as 'polygon'].USDC, address, parseCrypto(amount));
}
