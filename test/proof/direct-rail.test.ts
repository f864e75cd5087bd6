import { describe, expect, it } from 'vitest';
import { sharedChain } from '../support/chain';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { http } from '../support/http';
import { EVM_WALLETS, openSession, payFromWallet, sessionRow, waitForStatus } from './support';

// The direct stablecoin rail: the customer pays the deposit address from a wallet
// of their own; no provider takes part and the chain alone completes the session.
// The sandbox runs only as the price source (its quote is G); it delivers nothing here.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
const SOLANA = { asset: 'USDC', network: 'solana', address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' };

const askDeposit = (id: string) => http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`);

describe('pay from your wallet', () => {
  it('answers the deposit address, the exact amount and an EIP-681 URI, the same on every call', async () => {
    const m = await createApprovedMerchant(ctx.app, { wallets: EVM_WALLETS });
    const id = await openSession(ctx, m.apiKey, { amount: 40, currency: 'EUR', countryCode: 'FR', network: 'base' });
    const first = await askDeposit(id);
    expect(first.status).toBe(200);
    const { depositAddress } = await sessionRow(ctx, id);
    const token = chain.tokens.base.USDC;
    // 40 EUR at the sandbox's 1.08: the quote is the amount shown, and G.
    expect(first.json).toEqual({
      ok: true,
      deposit: {
        address: depositAddress,
        asset: 'USDC',
        network: 'base',
        chainId: 31337,
        amount: '43.200000',
        uri: `ethereum:${token}@31337/transfer?address=${depositAddress}&uint256=43200000`,
        expiresAt: expect.any(String),
      },
    });
    expect((await askDeposit(id)).json).toEqual(first.json);
    expect((await sessionRow(ctx, id)).expectedGross).toBe(43_200_000n);
  });

  it('completes the session from a wallet transfer with no provider involved', async () => {
    const m = await createApprovedMerchant(ctx.app, { wallets: EVM_WALLETS });
    const id = await openSession(ctx, m.apiKey, { network: 'arbitrum' });
    const { deposit } = (await askDeposit(id)).json;
    const receipt = await payFromWallet(chain, chain.tokens.arbitrum.USDC, deposit.address, 25_000_000n);
    await waitForStatus(ctx, id, 'completed');
    const tx = (await http('GET', `${ctx.baseUrl}/api/v1/transactions/${id}`, { headers: { authorization: `Bearer ${m.apiKey}` } })).json
      .transaction;
    expect(tx).toMatchObject({
      status: 'completed',
      grossAmount: '25.000000',
      depositTransactionHash: receipt.transactionHash,
      providerPaymentId: null,
    });
    const [events] = await ctx.db.sql`select count(*)::int as n from provider_events where payment_id = ${id}`;
    expect(events!.n).toBe(0);
  });

  it('shows the address, the amount and the QR code on the hosted page', async () => {
    const m = await createApprovedMerchant(ctx.app, { wallets: EVM_WALLETS });
    const id = await openSession(ctx, m.apiKey);
    const before = await http('GET', `${ctx.baseUrl}/pay/${id}`);
    expect(before.text).toContain('id="wallet-button"');
    const page = await http('POST', `${ctx.baseUrl}/pay/${id}/wallet`);
    expect(page.status).toBe(200);
    const { depositAddress } = await sessionRow(ctx, id);
    // The whole address, in a field that wraps rather than cuts it off.
    expect(page.text).toMatch(new RegExp(`id="deposit-address"[^>]*>${depositAddress}</textarea>`));
    expect(page.text).toContain('25.000000');
    expect(page.text).toMatch(/id="deposit-qr"[^>]*><svg/);
  });

  it('refuses a network without a chain verifier, an unknown session and a malformed id', async () => {
    const m = await createApprovedMerchant(ctx.app, { wallets: [SOLANA] });
    const id = await openSession(ctx, m.apiKey, { network: 'solana' });
    expect(await sessionRow(ctx, id)).toMatchObject({ verification: 'provider', depositAddress: null });
    expect((await askDeposit(id)).status).toBe(409);
    expect((await askDeposit('SV_doesnotexist000000000000')).status).toBe(404);
    expect((await askDeposit('nope')).status).toBe(400);
  });
});
