import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { seedPayment } from '../support/seed-payment';

// Admin API: GET /admin/v1/payments/{id}, what `ops payments wait` polls.
const ctx = useTestApp();

const seedSession = (merchantId: string, status: 'pending' | 'completed' | 'failed') => seedPayment(ctx.db.db, merchantId, status);

const get = (id: string, headers: Record<string, string> = adminHeaders) =>
  ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}`, headers });

describe('admin API: a payment’s status', () => {
  it('a pending payment: not terminal, no transaction', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedSession(m.id, 'pending');
    const res = await get(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      payment: { id, merchantId: m.id, status: 'pending', terminal: false, amount: '25.00', currency: 'USD', completedAt: null },
      transaction: null,
      payouts: [],
    });
  });

  it('a completed payment: terminal, with its settlement split', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedSession(m.id, 'completed');
    expect((await get(id)).json()).toMatchObject({
      payment: { status: 'completed', terminal: true },
      transaction: {
        status: 'completed',
        grossAmount: '25.000000',
        merchantSettlementAmount: '24.625000',
        platformCommissionAmount: '0.375000',
        asset: 'USDC',
        network: 'polygon',
        transactionHash: `0x${'ab'.repeat(32)}`,
      },
    });
  });

  it('a failed payment: terminal, with the reason', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedSession(m.id, 'failed');
    expect((await get(id)).json()).toMatchObject({
      payment: { status: 'failed', terminal: true },
      transaction: { status: 'failed', grossAmount: null, failureReason: 'declined' },
    });
  });
});

describe('admin API: a payment’s status, errors and security', () => {
  it('an unknown payment is 404, a non-canonical id 400', async () => {
    expect((await get('SV_doesnotexist')).json()).toMatchObject({ ok: false, error: 'NotFound', message: 'Payment not found.' });
    const bad = await get('12345');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ ok: false, error: 'InvalidId' });
  });

  it('refuses a missing or wrong token and a merchant key with 401', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedSession(m.id, 'pending');
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: `Bearer ${m.apiKey}` },
    ]) {
      const res = await get(id, headers);
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain(id);
    }
  });
});
