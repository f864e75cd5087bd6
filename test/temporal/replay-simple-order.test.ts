import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { useTestApp } from '../support/harness';
import { http } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { startReceiver } from '../support/receiver';
import { payFromWallet, sharedChain } from '../support/chain';
import { orderDepositAddressOf } from '../support/proof';
import { replayRuns } from './histories';

// Runs of the simpleOrder workflow on its main paths (fiat rail settled with its webhook, declined,
// crypto rail settled, expired; on chain: settled from the deposit address, underpaid at expiry,
// a success never proven; on tron: the provider's word), replayed and recorded on demand.
const ctx = useTestApp(
  { PROCESSING_TIMEOUT_SECONDS: '4', PROVIDER_PROOF_TIMEOUT_SECONDS: '2' },
  { listen: true, sandbox: true, worker: true },
);
const customer = {
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  crypto_currency: 'USDC',
  crypto_currency_network: 'POLYGON',
};

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

async function checkout(body: Record<string, unknown> = {}) {
  const res = await http('POST', `${ctx.baseUrl}/api/checkout`, { body: { fiat_amount: 25, fiat_currency: 'EUR', customer, ...body } });
  expect(res.status).toBe(201);
  return res.json.data.transaction_code as string;
}
const pay = async (code: string, outcome: 'succeeded' | 'declined') =>
  expect((await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: code, outcome } })).status).toBe(
    200,
  );

describe('simpleOrder histories', () => {
  it('replays the current code’s own runs: settled (fiat, crypto), failed, timed out in processing, expired', async () => {
    const runs: Record<string, string> = {};
    runs.settledFiat = await checkout({ webhook_url: `${receiver.url}/hooks` });
    await pay(runs.settledFiat, 'succeeded');
    runs.failed = await checkout();
    await pay(runs.failed, 'declined');
    runs.settledCrypto = await checkout();
    expect(
      (await http('GET', `${ctx.baseUrl}/api/payment_link?transaction_code=${runs.settledCrypto}&payment_method=usdc_polygon`)).status,
    ).toBe(200);
    await pay(runs.settledCrypto, 'succeeded');

    runs.processingTimedOut = await checkout({ fiat_amount: 10, fiat_currency: 'USD' });
    const terms = {
      id: runs.processingTimedOut,
      amount: '10.00',
      currency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: await orderDepositAddressOf(ctx, runs.processingTimedOut),
    };
    expect(
      (await postCallback(ctx.app, sandboxEvent(terms, 'payment.processing'), { secret: ctx.config.providers.sandbox.callbackSecret }))
        .statusCode,
    ).toBe(200);

    // A success the chain never proves: processing, `unverified`, then failed when processing runs out.
    runs.unverified = await checkout({ fiat_amount: 10, fiat_currency: 'USD' });
    expect((await http('GET', `${ctx.baseUrl}/api/payment_link?transaction_code=${runs.unverified}&payment_method=card`)).status).toBe(200);
    const claimed = { ...terms, id: runs.unverified, walletAddress: await orderDepositAddressOf(ctx, runs.unverified) };
    expect(
      (
        await postCallback(ctx.app, sandboxEvent(claimed, 'payment.succeeded', { destinationAmount: '10.000000' }), {
          secret: ctx.config.providers.sandbox.callbackSecret,
        })
      ).statusCode,
    ).toBe(200);

    // Tron has no verifier: the provider's word settles it, as before proof of payment.
    runs.settledProvider = await checkout({
      customer: { wallet_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', crypto_currency: 'USDT', crypto_currency_network: 'TRON' },
    });
    await pay(runs.settledProvider, 'succeeded');

    // An order that expires needs a short lifetime: an app of its own on the same database and queue.
    const shortLived = await buildApp(
      {
        config: { ...ctx.config, checkout: { ...ctx.config.checkout, sessionTtlSeconds: 4 } },
        db: ctx.db,
        temporal: ctx.temporal,
        providers: ctx.providers,
      },
      { logger: false },
    );
    const res = await shortLived.inject({
      method: 'POST',
      url: '/api/checkout',
      payload: { fiat_amount: 10, fiat_currency: 'USD', customer },
    });
    expect(res.statusCode).toBe(201);
    runs.expired = res.json().data.transaction_code as string;
    // Half of G paid on chain before it expires: `underpaid`, never settled.
    const underpaid = await shortLived.inject({
      method: 'POST',
      url: '/api/checkout',
      payload: { fiat_amount: 10, fiat_currency: 'USD', customer },
    });
    runs.underpaidExpired = underpaid.json().data.transaction_code as string;
    expect(
      (await shortLived.inject({ method: 'GET', url: `/api/payment_link?transaction_code=${runs.underpaidExpired}&payment_method=card` }))
        .statusCode,
    ).toBe(200);
    const chain = sharedChain();
    await payFromWallet(chain, chain.tokens.polygon.USDC, await orderDepositAddressOf(ctx, runs.underpaidExpired), 5_000_000n);
    await shortLived.close();

    const outcomes = await Promise.all(Object.values(runs).map((id) => ctx.temporal.workflow.getHandle(id).result()));
    expect(outcomes.map((o) => (o as { status: string }).status)).toEqual([
      'settled',
      'failed',
      'settled',
      'failed',
      'failed',
      'settled',
      'expired',
      'expired',
    ]);
    const kinds = await ctx.db.sql`select payment_id, kind from payment_exceptions where payment_kind = 'simple_order'`;
    expect(Object.fromEntries(kinds.map((k) => [k.payment_id, k.kind]))).toEqual({
      [runs.unverified]: 'unverified',
      [runs.underpaidExpired]: 'underpaid',
    });
    await replayRuns(ctx.temporal, 'simple-order', runs);
  });
});
