import { afterAll, describe, expect, it } from 'vitest';
import { buildSandboxApp } from '../../sandbox/app';
import { loadConfig } from '../../src/config';
import { createProviders } from '../../src/providers';

// Customers and the service's own processes reach each other on different URLs in
// compose. The sandbox accepts callback URLs written on the service's public URL and posts them to
// its internal URL; it sends customers to its own public URL.

const PUBLIC = 'https://pay.example.com';
const INTERNAL = 'http://service:3000';
const API_KEY = 'sbx_sk_internal_url_test';
const posted: string[] = [];
const sandbox = buildSandboxApp({
  apiKey: API_KEY,
  callbackSecret: 'sbx_whsec_internal_url_test',
  publicUrl: 'https://sandbox.example.com',
  serviceUrl: INTERNAL,
  servicePublicUrl: PUBLIC,
  retryDelaysMs: [],
  fetch: async (url) => {
    posted.push(url instanceof Request ? url.url : url.toString());
    return new Response('{}', { status: 200 });
  },
});
afterAll(() => sandbox.close());

describe('the sandbox behind two URLs', () => {
  it('takes callback URLs on the public URL, posts them to the internal one, and sends customers to its public URL', async () => {
    const created = await sandbox.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { authorization: `Bearer ${API_KEY}` },
      payload: {
        reference: 'SV_internal1',
        sourceAmount: '19.99',
        sourceCurrency: 'EUR',
        destinationAsset: 'USDC',
        network: 'polygon',
        walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
        countryCode: 'FR',
        callbackUrl: `${PUBLIC}/providers/sandbox/callbacks`,
        returnUrl: `${PUBLIC}/pay/SV_internal1`,
      },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().checkoutUrl).toMatch(/^https:\/\/sandbox\.example\.com\/checkout\//);
    const paid = await sandbox.inject({
      method: 'POST',
      url: '/test-helpers/pay',
      payload: { reference: 'SV_internal1', outcome: 'declined' },
    });
    expect(paid.statusCode).toBe(200);
    expect(posted.length).toBeGreaterThan(0);
    for (const url of posted) expect(url).toBe(`${INTERNAL}/providers/sandbox/callbacks`);
  });

  it('is configured so by SERVICE_URL and SANDBOX_PUBLIC_URL, which default to the public and the internal URL', () => {
    const base = {
      NODE_ENV: 'test',
      ADMIN_TOKEN: 'x'.repeat(32),
      SECRETS_KEY: 'ab'.repeat(32),
      SANDBOX_ENABLED: 'true',
      PUBLIC_BASE_URL: PUBLIC,
      SANDBOX_URL: 'http://sandbox:3100',
    };
    const defaults = loadConfig(base);
    expect(defaults.http.serviceUrl).toBe(PUBLIC);
    expect(defaults.providers.sandbox.publicUrl).toBe('http://sandbox:3100');
    const split = loadConfig({ ...base, SERVICE_URL: `${INTERNAL}/`, SANDBOX_PUBLIC_URL: 'https://sandbox.example.com' });
    expect(split.http.serviceUrl).toBe(INTERNAL);
    expect(split.providers.sandbox).toMatchObject({ url: 'http://sandbox:3100', publicUrl: 'https://sandbox.example.com' });
    // The hosted page's CSP lets the Pay form lead to where customers reach the sandbox.
    expect(createProviders(split).pageOrigins()).toEqual(['https://sandbox.example.com']);
  });
});
