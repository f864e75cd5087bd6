import { describe, expect, it } from 'vitest';
import { expectOk, spawnOps } from '../cli/run-ops';
import { sharedChain } from '../support/chain';
import { adminHeaders, ADMIN_TOKEN, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { openOrder, orderRow, waitForOrder, waitForOrderFeeSwept, waitForOrderPayouts } from './order-support';
import { merchantOnEveryNetwork, openSession, payFromWallet, pressPay, sessionRow, waitForStatus } from './support';

// The operator's view of a payment's proof (GET /admin/v1/payments/{id}/proof and `ops payments
// proof`): the deposit address, the token balance there on the real chain, the credited logs with
// their transaction hashes and confirmations, for checkout sessions and simple orders alike.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
const proofOf = async (id: string) => ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}/proof`, headers: adminHeaders });

describe('a payment’s proof', () => {
  it('shows a completed session’s deposit address, its balance on chain and the credited log with its confirmations', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const receipt = await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    // Read once the session's deposit is swept, as for the order below: the deposit address is empty again.
    await eventually(
      () =>
        ctx.db
          .sql`select p.status from payout_items i join payouts p on p.id = i.payout_id where i.payment_id = ${id} and p.kind = 'sweep'`,
      (rows) => rows.length === 1 && rows.every((r) => r.status === 'confirmed'),
      30_000,
      'the deposit swept',
    );

    const res = await proofOf(id);
    expect(res.statusCode).toBe(200);
    const proof = res.json().proof;
    expect(proof).toMatchObject({
      paymentId: id,
      kind: 'checkout_session',
      status: 'completed',
      verification: 'chain',
      network: 'polygon',
      depositAddress,
      expectedGross: '25.000000',
      credited: '25.000000',
      chain: { chainId: 31337, token: chain.tokens.polygon.USDC, confirmationsRequired: 1, balance: '0.000000' },
      chainError: null,
    });
    // Read after the proof, uncached: the shared chain only grows meanwhile.
    const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    expect(BigInt(proof.chain.head)).toBeLessThanOrEqual(head);
    expect(proof.credits).toEqual([
      {
        transactionHash: receipt.transactionHash,
        logIndex: expect.any(Number),
        token: chain.tokens.polygon.USDC,
        asset: 'USDC',
        amount: '25.000000',
        blockNumber: receipt.blockNumber.toString(),
        confirmations: (BigInt(proof.chain.head) - receipt.blockNumber + 1n).toString(),
        state: 'credited',
      },
    ]);
  });

  it('prints a simple order’s proof through the ops CLI', async () => {
    const code = await openOrder(ctx);
    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: code, outcome: 'succeeded' } }))
        .status,
    ).toBe(200);
    await waitForOrder(ctx, code, 'settled');
    // Read once the order's payout to the customer has run: the deposit address is empty again.
    await eventually(
      () => orderRow(ctx, code),
      (r) => r.payoutDispatched,
      30_000,
      'the payout dispatched',
    );
    await waitForOrderPayouts(ctx, code, 30_000);
    await waitForOrderFeeSwept(ctx, code);
    const { depositAddress, depositTransactionHash } = await orderRow(ctx, code);
    const run = expectOk(await spawnOps(['payments', 'proof', code], { SVC_URL: ctx.baseUrl, ADMIN_TOKEN, SVC_DATA_DIR: '/nonexistent' }));
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`proof ${code} settled (simple_order, verification chain)`);
    expect(run.stdout).toMatch(new RegExp(`deposit\\s+${depositAddress}`));
    expect(run.stdout).toMatch(/on chain\s+0\.000000 USDC at the deposit address now/);
    expect(run.stdout).toMatch(
      new RegExp(`logs\\s+${depositTransactionHash}:\\d+ 25\\.000000 USDC block \\d+, \\d+ confirmations, credited`),
    );
  }, 60_000);

  it('says the provider’s word is all there is on a network without a verifier', async () => {
    const code = await openOrder(ctx, {
      customer: { wallet_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', crypto_currency: 'USDT', crypto_currency_network: 'TRON' },
    });
    const proof = (await proofOf(code)).json().proof;
    expect(proof).toMatchObject({
      kind: 'simple_order',
      verification: 'provider',
      depositAddress: null,
      chain: null,
      credits: [],
      credited: '0.000000',
    });
  });

  it('answers 400 for an id of no payment kind, 404 for an unknown payment, 401 without the admin token', async () => {
    expect((await proofOf('not-an-id')).json()).toMatchObject({ ok: false, error: 'InvalidId' });
    expect((await proofOf('not-an-id')).statusCode).toBe(400);
    expect((await proofOf('SV_000000000000000000000000')).statusCode).toBe(404);
    expect((await proofOf(crypto.randomUUID())).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${crypto.randomUUID()}/proof` })).statusCode).toBe(401);
  });
});
