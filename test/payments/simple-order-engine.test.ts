import { describe, expect, it } from 'vitest';
import { MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey } from '../../src/workflows/search-attributes';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { orderDepositAddressOf } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// The simple API's orders on the one engine: the same search attributes as a checkout session, a
// bounded wait in `processing`, and the same late-money policy (flagged for an operator, never lost).
const ctx = useTestApp({ SESSION_TTL_SECONDS: '2', PROCESSING_TIMEOUT_SECONDS: '2' }, { worker: true, sandbox: true });
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const customer = { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' };

async function order(externalReference: string) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/checkout',
    payload: { fiat_amount: 10, fiat_currency: 'USD', external_reference: externalReference, customer },
  });
  expect(res.statusCode).toBe(201);
  return res.json().data.transaction_code as string;
}
// Polygon has a chain verifier here: the provider delivers to the order's own deposit address.
const terms = async (code: string) => ({
  id: code,
  amount: '10.00',
  currency: 'USD',
  destinationAsset: 'USDC',
  network: 'polygon',
  walletAddress: await orderDepositAddressOf(ctx, code),
});
const row = async (code: string) =>
  (await ctx.db.sql`select status, failure_reason from simple_orders where transaction_code = ${code}`)[0]!;
const exceptionKinds = async (code: string) =>
  (await ctx.db.sql`select kind from payment_exceptions where payment_id = ${code} order by created_at`).map((r) => r.kind as string);
const secret = () => ({ secret: ctx.config.providers.sandbox.callbackSecret });

describe('a simple order on the payment engine', () => {
  it('carries the search attributes an operator filters by, upserted on each transition', async () => {
    const code = await order('shop-7');
    await eventually(
      () => row(code),
      (r) => r.status === 'expired',
      15_000,
      'expiry',
    );
    await ctx.temporal.workflow.getHandle(code).result();
    const attributes = (await ctx.temporal.workflow.getHandle(code).describe()).typedSearchAttributes;
    expect(attributes.get(PaymentStatusKey)).toBe('expired');
    expect(attributes.get(OrderIdKey)).toBe('shop-7');
    expect(attributes.get(ProviderKey)).toBe('sandbox');
    // No merchant stands behind a simple order.
    expect(attributes.get(MerchantIdKey)).toBeUndefined();
  });

  it('records a success that arrives after the order expired, with no transfer seen, as an unverified exception, and the event as late', async () => {
    const code = await order('late-1');
    await eventually(
      () => row(code),
      (r) => r.status === 'expired',
      15_000,
      'expiry',
    );
    const event = sandboxEvent(await terms(code), 'payment.succeeded');
    const res = await postCallback(ctx.app, event, secret());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, late: true });
    expect(await row(code)).toEqual({ status: 'expired', failure_reason: null });
    // Polygon has a verifier: the provider's word is a claim until the transfer is seen.
    expect(await exceptionKinds(code)).toEqual(['unverified']);
    const [stored] = await ctx.db.sql`select state from provider_events where event_id = ${event.id}`;
    expect(stored!.state).toBe('late');
  });

  it('fails an order the provider left in processing, and records money that comes after as an exception', async () => {
    const code = await order('stuck-1');
    expect((await postCallback(ctx.app, sandboxEvent(await terms(code), 'payment.processing'), secret())).statusCode).toBe(200);
    await eventually(
      () => row(code),
      (r) => r.status === 'failed',
      20_000,
      'the processing timeout',
    );
    expect(await row(code)).toEqual({ status: 'failed', failure_reason: 'provider_timeout' });
    expect(await exceptionKinds(code)).toEqual([]);
    expect((await ctx.temporal.workflow.getHandle(code).result()).status).toBe('failed');

    expect((await postCallback(ctx.app, sandboxEvent(await terms(code), 'payment.succeeded'), secret())).json()).toEqual({
      ok: true,
      late: true,
    });
    expect(await exceptionKinds(code)).toEqual(['unverified']);
  });
});

describe('a simple order’s customer wallet', () => {
  it('is refused with a wrong EIP-55 checksum, and stored checksummed when given in one case', async () => {
    const send = (wallet_address: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/checkout',
        payload: { fiat_amount: 10, fiat_currency: 'USD', customer: { ...customer, wallet_address } },
      });
    const mistyped = await send(WALLET.replace('E7', 'e7'));
    expect(mistyped.statusCode).toBe(422);
    expect(mistyped.json()).toMatchObject({
      status: 'error',
      error: 'ValidationError',
      message: expect.stringContaining('customer.wallet_address'),
    });
    const lower = await send(WALLET.toLowerCase());
    expect(lower.statusCode).toBe(201);
    const [stored] = await ctx.db
      .sql`select wallet_address from simple_orders where transaction_code = ${lower.json().data.transaction_code}`;
    expect(stored!.wallet_address).toBe(WALLET);
  });
});
