import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';

// pending → expired when nobody pays, with a 3-second order lifetime. The sandbox
// provider runs because an order is valued by the provider's quote when it is created.
const ctx = useTestApp({ SESSION_TTL_SECONDS: '3' }, { worker: true, sandbox: true });

const customer = {
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  crypto_currency: 'USDC',
  crypto_currency_network: 'POLYGON',
};

describe('an unpaid simple order', () => {
  it('expires, and can no longer be paid', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/checkout',
      payload: { fiat_amount: 10, fiat_currency: 'USD', customer },
    });
    expect(created.statusCode).toBe(201);
    const code = created.json().data.transaction_code as string;
    const read = async () =>
      (await ctx.app.inject({ method: 'GET', url: `/api/transaction?transaction_code=${code}` })).json().data.status as string;
    await eventually(read, (s) => s === 'expired', 15_000, 'expiry');
    expect((await ctx.temporal.workflow.getHandle(code).result()).status).toBe('expired');
    const link = await ctx.app.inject({ method: 'GET', url: `/api/payment_link?transaction_code=${code}&payment_method=usdc_polygon` });
    expect(link.statusCode).toBe(409);
    expect(link.json()).toEqual({ status: 'error', error: 'Conflict', message: expect.any(String) });
  });
});
