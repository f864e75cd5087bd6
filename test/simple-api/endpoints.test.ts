import { describe, expect, it } from 'vitest';
import { adminHeaders, useTestApp } from '../support/harness';
import { http } from '../support/http';
import { orderDepositAddressOf } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// The simple API's endpoints, success and error paths, all in the { status } envelope.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });

export const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const customer = { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' };
const api = (path: string) => `${ctx.baseUrl}/api${path}`;
const checkout = (body: Record<string, unknown> = {}) =>
  http('POST', api('/checkout'), { body: { fiat_amount: 25, fiat_currency: 'EUR', customer, ...body } });

function expectError(res: { status: number; json: any }, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.json).toEqual({ status: 'error', error, message: expect.any(String) });
}

describe('GET /api/payment_options', () => {
  it('lists fiat rails with the provider quote and a crypto rail per asset-network pair', async () => {
    const res = await http('GET', api('/payment_options?fiat_amount=25&fiat_currency=eur'));
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('success');
    const options = res.json.data.payment_options as any[];
    expect(options.find((o) => o.slug === 'card')).toEqual({
      slug: 'card',
      type: 'fiat',
      name: 'Card',
      amount: '25.00',
      currency: 'EUR',
      receive_amount: '27.000000',
      receive_currency: 'USDC',
    });
    expect(options.find((o) => o.slug === 'bank_transfer')).toMatchObject({ type: 'fiat', amount: '25.00', currency: 'EUR' });
    const crypto = options.filter((o) => o.type === 'crypto');
    expect(crypto.map((o) => o.slug).sort()).toEqual(
      ['usdc_arbitrum', 'usdc_base', 'usdc_ethereum', 'usdc_polygon', 'usdc_solana', 'usdt_ethereum', 'usdt_polygon', 'usdt_tron'].sort(),
    );
    expect(crypto.find((o) => o.slug === 'usdt_tron')).toEqual({
      slug: 'usdt_tron',
      type: 'crypto',
      name: 'USDT on Tron',
      amount: '27.000000',
      currency: 'USDT',
      network: 'TRON',
    });
  });

  it('converts JPY at the sandbox rate with 6 decimals', async () => {
    const res = await http('GET', api('/payment_options?fiat_amount=1500&fiat_currency=JPY'));
    expect(res.status).toBe(200);
    expect(res.json.data.payment_options.find((o: any) => o.slug === 'usdc_polygon').amount).toBe('10.050000');
  });

  it('answers validation errors in the simple envelope', async () => {
    expectError(await http('GET', api('/payment_options?fiat_amount=25&fiat_currency=XYZ')), 422, 'ValidationError');
    expectError(await http('GET', api('/payment_options?fiat_amount=25.001&fiat_currency=USD')), 422, 'ValidationError');
    expectError(await http('GET', api('/payment_options?fiat_amount=abc&fiat_currency=USD')), 422, 'ValidationError');
    expectError(await http('GET', api('/payment_options?fiat_currency=USD')), 422, 'ValidationError');
    expectError(await http('GET', api('/payment_options?fiat_amount=0.5&fiat_currency=USD')), 422, 'ValidationError');
  });
});

describe('POST /api/checkout', () => {
  it('creates a pending order run by its workflow', async () => {
    const res = await checkout({ external_reference: 'order-1', success_url: 'https://shop.example/thanks' });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('success');
    const data = res.json.data;
    expect(data.transaction_code).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(data.amount_in_usd).toBe(27);
    expect(typeof data.amount_in_usd).toBe('number');
    expect(data.checkout_url).toBe(`${ctx.baseUrl}/pay/${data.transaction_code}`);
    expect(data.payment_options.length).toBeGreaterThanOrEqual(10);

    const tx = await http('GET', api(`/transaction?transaction_code=${data.transaction_code}`));
    expect(tx.status).toBe(200);
    expect(tx.json.data).toMatchObject({
      transaction_code: data.transaction_code,
      status: 'pending',
      external_reference: 'order-1',
      fiat_amount: 25,
      fiat_currency: 'EUR',
      amount_in_usd: 27,
      received_usd: null,
      wallet_address: WALLET,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
      payout_dispatched: false,
    });
    const description = await ctx.temporal.workflow.getHandle(data.transaction_code).describe();
    expect(description.type).toBe('simpleOrder');
    expect(description.status.name).toBe('RUNNING');
  });

  it('accepts a lowercase network and keeps exact amounts', async () => {
    const res = await checkout({ fiat_amount: 19.99, fiat_currency: 'usd', customer: { ...customer, crypto_currency_network: 'polygon' } });
    expect(res.status).toBe(201);
    expect(res.json.data.amount_in_usd).toBe(19.99);
  });

  it('refuses what is not valid, in the simple envelope', async () => {
    expectError(await checkout({ fiat_amount: undefined }), 422, 'ValidationError');
    expectError(await http('POST', api('/checkout'), { body: { fiat_amount: 10, fiat_currency: 'USD' } }), 422, 'ValidationError');
    expectError(await checkout({ fiat_currency: 'XYZ' }), 422, 'ValidationError');
    expectError(await checkout({ fiat_amount: 10.001 }), 422, 'ValidationError');
    expectError(await checkout({ fiat_amount: 2_000_000 }), 422, 'ValidationError');
    expectError(await checkout({ unknown: 1 }), 422, 'ValidationError');
    expectError(await checkout({ webhook_url: 'ftp://x.example' }), 422, 'ValidationError');
    expectError(await checkout({ customer: { ...customer, crypto_currency_network: 'TRON' } }), 422, 'ValidationError');
    expectError(await checkout({ customer: { ...customer, crypto_currency: 'DOGE' } }), 422, 'ValidationError');
    expectError(
      await checkout({ customer: { ...customer, wallet_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' } }),
      422,
      'ValidationError',
    );
    expectError(
      await checkout({ customer: { ...customer, crypto_currency: 'USDT', crypto_currency_network: 'TRON' } }),
      422,
      'ValidationError',
    );
    const ok = await checkout({
      customer: { wallet_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', crypto_currency: 'USDT', crypto_currency_network: 'TRON' },
    });
    expect(ok.status).toBe(201);
  });

  it('answers 400 to malformed JSON and 413 to an oversized body, in the simple envelope', async () => {
    const bad = await fetch(api('/checkout'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"fiat_amount":' });
    expectError({ status: bad.status, json: await bad.json() }, 400, 'BadRequest');
    const big = await fetch(api('/checkout'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fiat_amount: 1, fiat_currency: 'USD', external_reference: 'x'.repeat(70_000), customer }),
    });
    expectError({ status: big.status, json: await big.json() }, 413, 'PayloadTooLarge');
  });

  it('needs no API key, and reading is not rate limited', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, () => http('GET', api('/payment_options?fiat_amount=5&fiat_currency=USD'))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
  });

  it('is refused while the payment kill switch is on', async () => {
    const off = await ctx.app.inject({
      method: 'PUT',
      url: '/admin/v1/settings/payments',
      headers: adminHeaders,
      payload: { enabled: false },
    });
    expect(off.statusCode).toBe(200);
    try {
      expectError(await checkout(), 403, 'PaymentsDisabled');
    } finally {
      await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    }
  });
});

describe('GET /api/payment_link', () => {
  it('answers the provider page for a fiat rail, the same one each time', async () => {
    const code = (await checkout()).json.data.transaction_code;
    const first = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=card`));
    expect(first.status).toBe(200);
    expect(first.json.data.redirect_url).toMatch(new RegExp(`^${ctx.config.providers.sandbox.url}/checkout/sbx_pay_[A-Za-z0-9]{24}$`));
    const again = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=bank_transfer`));
    expect(again.json.data.redirect_url).toBe(first.json.data.redirect_url);
  });

  it('answers a deposit address shaped for the network for a crypto rail', async () => {
    const code = (await checkout()).json.data.transaction_code;
    const evm = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_base`));
    expect(evm.status).toBe(200);
    expect(evm.json.data).toMatchObject({
      address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      amount: '27.000000',
      asset: 'USDC',
      network: 'BASE',
    });
    expect(Date.parse(evm.json.data.expires_at)).toBeGreaterThan(Date.now());
    const same = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_base`));
    expect(same.json.data.address).toBe(evm.json.data.address);
    const tron = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdt_tron`));
    expect(tron.json.data.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const sol = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_solana`));
    expect(sol.json.data.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it('answers errors in the simple envelope', async () => {
    const code = (await checkout()).json.data.transaction_code;
    expectError(await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=paypal`)), 422, 'ValidationError');
    expectError(await http('GET', api(`/payment_link?transaction_code=${code}`)), 422, 'ValidationError');
    expectError(await http('GET', api('/payment_link?transaction_code=nope&payment_method=card')), 400, 'InvalidId');
    expectError(await http('GET', api(`/payment_link?transaction_code=${crypto.randomUUID()}&payment_method=card`)), 404, 'NotFound');
  });
});

describe('GET /api/transaction', () => {
  it('answers 404 for an unknown code and 400 for a non-UUID', async () => {
    expectError(await http('GET', api(`/transaction?transaction_code=${crypto.randomUUID()}`)), 404, 'NotFound');
    expectError(await http('GET', api('/transaction?transaction_code=SV_abc')), 400, 'InvalidId');
    expectError(await http('GET', api('/transaction')), 422, 'ValidationError');
  });

  it('answers unknown simple routes in the simple envelope', async () => {
    expectError(await http('GET', api('/nothing-here')), 404, 'NotFound');
  });
});

describe('provider callbacks for simple orders', () => {
  it('checks amounts, dedupes, and refuses bad signatures', async () => {
    const code = (await checkout()).json.data.transaction_code;
    await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=card`));
    // Polygon has a chain verifier here: the provider delivers to the order's own deposit address.
    const order = {
      id: code,
      amount: '25.00',
      currency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: await orderDepositAddressOf(ctx, code),
    };
    const secret = ctx.config.providers.sandbox.callbackSecret;

    const wrong = await postCallback(ctx.app, sandboxEvent({ ...order, amount: '26.00' }, 'payment.processing'), { secret });
    expect(wrong.statusCode).toBe(422);
    const unsigned = await postCallback(ctx.app, sandboxEvent(order, 'payment.processing'), { secret, header: null });
    expect(unsigned.statusCode).toBe(401);

    const event = sandboxEvent(order, 'payment.processing');
    expect((await postCallback(ctx.app, event, { secret })).statusCode).toBe(200);
    const dup = await postCallback(ctx.app, event, { secret });
    expect(dup.statusCode).toBe(200);
    expect(dup.json()).toMatchObject({ duplicate: true });
    const unknown = await postCallback(ctx.app, sandboxEvent({ ...order, id: crypto.randomUUID() }, 'payment.processing'), { secret });
    expect(unknown.statusCode).toBe(404);

    const admin = await ctx.app.inject({ method: 'GET', url: `/admin/v1/simple-orders/${code}`, headers: adminHeaders });
    expect(admin.statusCode).toBe(200);
    // The refused callback left nothing behind (422 before anything is written).
    expect(admin.json().providerEvents.map((e: any) => e.state)).toEqual(['signaled']);
  });

  it('keeps the admin route behind the admin token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/admin/v1/simple-orders/${crypto.randomUUID()}` });
    expect(res.statusCode).toBe(401);
    const missing = await ctx.app.inject({ method: 'GET', url: `/admin/v1/simple-orders/${crypto.randomUUID()}`, headers: adminHeaders });
    expect(missing.statusCode).toBe(404);
  });
});
