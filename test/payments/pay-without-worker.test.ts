import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { API_PROVIDER_TIMEOUT_MS, createProviders } from '../../src/providers';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { http } from '../support/http';

// No worker runs in this file: a customer's Pay must not wait on one (it used to be a workflow
// update, answered only by a live worker). The provider payment is made from the API, idempotently.
const ctx = useTestApp({}, { listen: true, sandbox: true });
const customer = {
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  crypto_currency: 'USDC',
  crypto_currency_network: 'POLYGON',
};

/** The API's own wiring (server.ts): the providers at `url`, with the API's short timeout. */
async function appWithProviderAt(url: string) {
  const config = { ...ctx.config, providers: { sandbox: { ...ctx.config.providers.sandbox, url } } };
  return buildApp(
    { config, db: ctx.db, temporal: ctx.temporal, providers: createProviders(config, { timeoutMs: API_PROVIDER_TIMEOUT_MS }) },
    { logger: false },
  );
}

/** A new merchant's session, opened through `app`; its id. */
async function openSessionOn(app: Awaited<ReturnType<typeof buildApp>>): Promise<string> {
  const m = await createApprovedMerchant(app);
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  return created.json().checkoutSession.id as string;
}

describe('Pay with every worker down', () => {
  it('sends the customer to the provider within 5 s, the same provider payment each time', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    expect(created.status).toBe(201);
    const id = created.json.checkoutSession.id as string;

    const locations: string[] = [];
    for (let i = 0; i < 2; i++) {
      const startedAt = Date.now();
      const res = await http('POST', `${ctx.baseUrl}/pay/${id}/start`);
      expect(Date.now() - startedAt).toBeLessThan(5000);
      expect(res.status).toBe(303);
      locations.push(res.headers.get('location')!);
    }
    expect(locations[0]).toMatch(new RegExp(`^${ctx.config.providers.sandbox.url}/`));
    expect(locations[1]).toBe(locations[0]);
    const [row] = await ctx.db.sql`select provider_payment_id, status from checkout_sessions where id = ${id}`;
    expect(row).toEqual({ provider_payment_id: expect.stringMatching(/^sbx_pay_/), status: 'pending' });
  });

  it('refuses Pay on a session that can no longer be paid, from Postgres alone', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    const id = created.json().checkoutSession.id as string;
    await ctx.db.sql`update checkout_sessions set status = 'expired' where id = ${id}`;
    const res = await ctx.app.inject({ method: 'POST', url: `/pay/${id}/start` });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('can no longer be paid');
  });

  it('closes the provider payment when the session ended while the provider made it', async () => {
    // The provider reached through a proxy that ends the session (as its run does at the expiry)
    // while the payment is being made: the session ends between Pay's check and its write.
    const sandboxUrl = ctx.config.providers.sandbox.url;
    let ending: string | null = null;
    const proxy = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        if (req.method === 'POST' && req.url?.endsWith('/v1/payments') && ending) {
          await ctx.db.sql`update checkout_sessions set status = 'expired' where id = ${ending}`;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length'].includes(k))) as Record<
          string,
          string
        >;
        const answer = await fetch(`${sandboxUrl}${req.url}`, {
          method: req.method,
          headers,
          ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const app = await appWithProviderAt(`http://127.0.0.1:${(proxy.address() as { port: number }).port}`);
    try {
      const id = await openSessionOn(app);
      ending = id;
      const res = await app.inject({ method: 'POST', url: `/pay/${id}/start` });
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('can no longer be paid');
      // The payment it made is on the row and closed at the provider: nobody can pay the ended session.
      const [row] = await ctx.db.sql`select provider_payment_id from checkout_sessions where id = ${id}`;
      expect(row!.provider_payment_id).toMatch(/^sbx_pay_/);
      const at = await http('GET', `${sandboxUrl}/test-helpers/payments/${id}`);
      expect(at.json.payment).toMatchObject({ id: row!.provider_payment_id, status: 'canceled' });
    } finally {
      await app.close();
      proxy.close();
    }
  });

  it('prepares a simple order’s rail (provider page or deposit address) without a worker', async () => {
    const order = await http('POST', `${ctx.baseUrl}/api/checkout`, { body: { fiat_amount: 25, fiat_currency: 'EUR', customer } });
    expect(order.status).toBe(201);
    const code = order.json.data.transaction_code as string;
    const fiat = await http('GET', `${ctx.baseUrl}/api/payment_link?transaction_code=${code}&payment_method=card`);
    expect(fiat.status).toBe(200);
    expect(fiat.json.data.redirect_url).toMatch(new RegExp(`^${ctx.config.providers.sandbox.url}/`));
    const crypto = await http('GET', `${ctx.baseUrl}/api/payment_link?transaction_code=${code}&payment_method=usdc_base`);
    expect(crypto.status).toBe(200);
    expect(crypto.json.data).toMatchObject({ type: 'crypto', asset: 'USDC', network: 'BASE', amount: '27.000000' });
  });

  it('answers within 5 s when the provider takes the connection and never replies', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const app = await appWithProviderAt(`http://127.0.0.1:${(silent.address() as { port: number }).port}`);
    try {
      const id = await openSessionOn(app);
      const startedAt = Date.now();
      const res = await app.inject({ method: 'POST', url: `/pay/${id}/start` });
      expect(Date.now() - startedAt).toBeLessThan(5000);
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('try again in a moment');
    } finally {
      await app.close();
      silent.close();
    }
  });

  it('tells the customer plainly to try again when the provider does not answer', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    const id = created.json().checkoutSession.id as string;
    await ctx.sandbox!.close();
    const res = await ctx.app.inject({ method: 'POST', url: `/pay/${id}/start` });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('try again in a moment');
  });
});
