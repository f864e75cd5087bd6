import { describe, expect, it } from 'vitest';
import { insertCheckoutSession } from '../../src/db/queries/checkout-sessions';
import { insertTransactionOnce } from '../../src/db/queries/transactions';
import { newPaymentId } from '../../src/domain/ids';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// Admin API: GET /admin/v1/payments/{id}, what `ops payments wait` polls. Rows are written directly:
// this is a read route, and the workflow that writes them for real is tested elsewhere.
const ctx = useTestApp();
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';

async function seedSession(merchantId: string, status: 'pending' | 'completed' | 'failed') {
  const id = newPaymentId();
  await insertCheckoutSession(ctx.db.db, {
    id,
    merchantId,
    status,
    amountMinor: 2500n,
    currency: 'USD',
    countryCode: 'US',
    destinationAsset: 'USDC',
    network: 'polygon',
    walletAddress: EVM,
    commissionBps: 150,
    provider: 'sandbox',
    railType: 'fiat_to_crypto',
    workflowStarted: true,
    expiresAt: new Date(Date.now() + 3600_000),
    ...(status === 'completed' ? { completedAt: new Date() } : {}),
  });
  if (status !== 'pending') {
    await insertTransactionOnce(ctx.db.db, {
      paymentId: id,
      merchantId,
      status,
      sourceAmountMinor: 2500n,
      sourceCurrency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: EVM,
      commissionBps: 150,
      provider: 'sandbox',
      providerEventId: `pe_${id}`,
      ...(status === 'completed'
        ? { grossMicro: 25_000_000n, merchantSettlementMicro: 24_625_000n, platformCommissionMicro: 375_000n, transactionHash: `0x${'ab'.repeat(32)}`, completedAt: new Date() }
        : { failureReason: 'declined' }),
    });
  }
  return id;
}

const get = (id: string, headers: Record<string, string> = adminHeaders) => ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}`, headers });

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
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789abcdef' }, { authorization: `Bearer ${m.apiKey}` }]) {
      const res = await get(id, headers);
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain(id);
    }
  });
});
