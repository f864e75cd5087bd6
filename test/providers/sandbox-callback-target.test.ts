import { afterAll, describe, expect, it } from 'vitest';
import { buildSandboxApp } from '../../sandbox/app';
import { callbackTargetRefusal } from '../../sandbox/callbacks';

// The sandbox posts its signed callbacks only to the merchant platform it was
// configured with (origin match), and refuses any other target when the payment is created.

const SERVICE_URL = 'http://127.0.0.1:39111';
const API_KEY = 'sbx_sk_target_policy_test';
const sandbox = buildSandboxApp({
  apiKey: API_KEY,
  callbackSecret: 'sbx_whsec_target_policy_test',
  publicUrl: 'http://127.0.0.1:39112',
  serviceUrl: SERVICE_URL,
});
afterAll(() => sandbox.close());

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
let n = 0;
const payment = (callbackUrl: string) => ({
  reference: `SV_target${n++}`,
  sourceAmount: '19.99',
  sourceCurrency: 'EUR',
  destinationAsset: 'USDC',
  network: 'polygon',
  walletAddress: WALLET,
  countryCode: 'FR',
  callbackUrl,
  returnUrl: `${SERVICE_URL}/pay/x`,
});
const deposit = (callbackUrl: string) => ({
  reference: `order-target-${n++}`,
  asset: 'USDC',
  network: 'polygon',
  amount: '10.000000',
  destinationAsset: 'USDC',
  destinationNetwork: 'polygon',
  walletAddress: WALLET,
  callbackUrl,
});

const post = (url: string, payload: object) =>
  sandbox.inject({ method: 'POST', url, headers: { authorization: `Bearer ${API_KEY}` }, payload });

const OTHER_TARGETS = [
  'http://169.254.169.254/latest/meta-data',
  'http://127.0.0.1:39113/providers/sandbox/callbacks',
  'https://127.0.0.1:39111/providers/sandbox/callbacks',
  'http://localhost:39111/providers/sandbox/callbacks',
  'http://127.0.0.1:39111@evil.example/providers/sandbox/callbacks',
  'http://10.0.0.5/hook',
];

describe('the sandbox callback target policy', () => {
  it.each(OTHER_TARGETS)('refuses to create a payment or a deposit calling back to %s', async (target) => {
    for (const [url, body] of [
      ['/v1/payments', payment(target)],
      ['/v1/deposits', deposit(target)],
    ] as const) {
      const res = await post(url, body);
      expect(res.statusCode, url).toBe(422);
      expect(res.json()).toEqual({ ok: false, error: 'callback_not_allowed', message: expect.stringContaining(SERVICE_URL) });
    }
  });

  it("accepts the service's own callback URL, whatever its path", async () => {
    expect((await post('/v1/payments', payment(`${SERVICE_URL}/providers/sandbox/callbacks`))).statusCode).toBe(201);
    expect((await post('/v1/deposits', deposit(`${SERVICE_URL}/other/path?x=1`))).statusCode).toBe(201);
  });

  it('has one rule, used by the sender as well', () => {
    expect(callbackTargetRefusal(`${SERVICE_URL}/x`, SERVICE_URL)).toBeNull();
    expect(callbackTargetRefusal('http://10.0.0.5/x', SERVICE_URL)).toMatch(/posts callbacks nowhere else/);
    expect(callbackTargetRefusal('not a url', SERVICE_URL)).toMatch(/not an absolute URL/);
  });
});
