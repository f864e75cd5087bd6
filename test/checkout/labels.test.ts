import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentStatusKey, ProviderKey } from '../../src/workflows/search-attributes';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { payDirect } from '../support/proof';
import { startReceiver, type ReceivedDelivery } from '../support/receiver';
import { payFromWallet, pressPay, sessionRow, waitForStatus } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury, waitForPayouts } from '../payouts/support';

// A session paid from the customer's own wallet (no provider) says
// crypto_transfer, no provider and eventSource chain on every surface; one paid through the
// provider keeps fiat_to_crypto, its provider and provider_webhook. And on the dev
// chain the explorer link is the sandbox's own transaction page, which answers.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** Every surface's labels for a session, once its payout is confirmed and payment.settled delivered. */
async function labelsEverywhere(merchant: { id: string; apiKey: string }, id: string) {
  const auth = { authorization: `Bearer ${merchant.apiKey}` };
  await waitForPayouts(ctx, id);
  const transaction = await eventually(
    async () => (await http('GET', `${ctx.baseUrl}/api/v1/transactions/${id}`, { headers: auth })).json.transaction,
    (t) => t.transactionHash !== null,
    30_000,
    'the transaction to name its payout',
  );
  const events = await eventually(
    async () => receiver.received.filter((d) => d.body.sessionId === id),
    (ds: ReceivedDelivery[]) => ds.some((d) => d.body.event === 'payment.settled'),
    30_000,
    'payment.settled',
  );
  const bodyOf = (event: string) => events.find((d) => d.body.event === event)!.body;
  const paymentSession = (await http('GET', `${ctx.baseUrl}/api/v1/payment-sessions/${id}`, { headers: auth })).json.paymentSession;
  const publicSession = (await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}`)).json;
  const page = await http('GET', `${ctx.baseUrl}/pay/${id}`, { headers: { 'accept-language': 'en' } });
  const paidThrough = /<dt>([^<]*)<\/dt><dd id="paid-through" data-rail="([^"]*)">([^<]*)<\/dd>/.exec(page.text);
  const run = await eventually(
    () => ctx.temporal.workflow.getHandle(id).describe(),
    (d) => d.typedSearchAttributes.get(PaymentStatusKey) === 'completed',
    20_000,
    `the run of ${id} to be searchable as completed`,
  );
  const csv = await ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${merchant.id}/settlements.csv`, headers: adminHeaders });
  const [header, ...rows] = csv.body.split('\r\n');
  const columns = header!.split(',');
  const row = rows.find((r) => r.startsWith(`${id},`))!.split(',');
  const [stored] = await ctx.db
    .sql`select t.provider, s.rail_type from transactions t join checkout_sessions s on s.id = t.payment_id where t.payment_id = ${id}`;
  return {
    transaction,
    paymentSession,
    publicSession,
    completed: bodyOf('payment.completed'),
    settled: bodyOf('payment.settled'),
    page: { status: page.status, paidThrough: paidThrough?.slice(1) },
    searchProvider: run.typedSearchAttributes.get(ProviderKey),
    csv: { railType: row[columns.indexOf('rail_type')], provider: row[columns.indexOf('provider')] },
    stored: { transactionProvider: stored!.provider as string | null, railType: stored!.rail_type as string },
  };
}

describe('labels of how a session was paid', () => {
  it('a wallet payment says crypto_transfer, no provider and eventSource chain everywhere', async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` });
    const deposit = await payDirect(ctx, id, own.chain);
    await waitForStatus(ctx, id, 'completed');
    const seen = await labelsEverywhere(m, id);

    expect(seen.paymentSession).toMatchObject({
      status: 'completed',
      railType: 'crypto_transfer',
      provider: null,
      providerPaymentId: null,
    });
    expect(seen.transaction).toMatchObject({ status: 'completed', railType: 'crypto_transfer', provider: null });
    expect(seen.completed).toMatchObject({
      event: 'payment.completed',
      eventSource: 'chain',
      railType: 'crypto_transfer',
      provider: null,
      externalTransactionId: '',
    });
    expect(seen.settled).toMatchObject({ event: 'payment.settled', eventSource: 'payout', railType: 'crypto_transfer', provider: null });
    // The customer's lookup never carried a provider, and does not start to.
    expect(seen.publicSession).toMatchObject({ ok: true, status: 'completed' });
    expect(seen.publicSession).not.toHaveProperty('provider');
    expect(seen.page).toEqual({ status: 200, paidThrough: ['Paid from', 'crypto_transfer', 'your own wallet'] });
    expect(seen.searchProvider).toBeUndefined();
    expect(seen.csv).toEqual({ railType: 'crypto_transfer', provider: '' });
    expect(seen.stored).toEqual({ transactionProvider: null, railType: 'crypto_transfer' });

    // The payout's explorer link is the sandbox's page for it, read from the chain.
    expect(seen.transaction.explorerUrl).toBe(`${ctx.config.providers.sandbox.publicUrl}/explorer/tx/${seen.transaction.transactionHash}`);
    const payoutPage = await http('GET', seen.transaction.explorerUrl);
    expect(payoutPage.status).toBe(200);
    expect(payoutPage.text).toContain(seen.transaction.transactionHash);
    expect(payoutPage.text).toContain('<dd id="status">success</dd>');
    // The customer's own transfer, which the sandbox never delivered, has its page too, with the amount.
    const depositPage = await http('GET', `${ctx.config.providers.sandbox.publicUrl}/explorer/tx/${deposit.transactionHash}`);
    expect(depositPage.status).toBe(200);
    expect(depositPage.text).toContain(deposit.transactionHash);
    expect(depositPage.text).toContain(`${seen.transaction.grossAmount} USDC`);
    expect((await http('GET', `${ctx.config.providers.sandbox.publicUrl}/explorer/tx/0x${'ab'.repeat(32)}`)).status).toBe(404);
  }, 120_000);

  it('a payment through the provider keeps fiat_to_crypto, the provider and provider_webhook', async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` });
    // Pay pressed: the provider's payment delivers G to the session's deposit address.
    const g = await pressPay(ctx, id);
    await payFromWallet(own.chain, own.chain.tokens.polygon.USDC, (await sessionRow(ctx, id)).depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    const seen = await labelsEverywhere(m, id);

    expect(seen.paymentSession).toMatchObject({ railType: 'fiat_to_crypto', provider: 'sandbox' });
    expect(seen.paymentSession.providerPaymentId).toMatch(/^sbx_pay_/);
    expect(seen.transaction).toMatchObject({ railType: 'fiat_to_crypto', provider: 'sandbox' });
    expect(seen.completed).toMatchObject({ eventSource: 'provider_webhook', railType: 'fiat_to_crypto', provider: 'sandbox' });
    expect(seen.settled).toMatchObject({ eventSource: 'payout', railType: 'fiat_to_crypto', provider: 'sandbox' });
    expect(seen.page).toEqual({ status: 200, paidThrough: ['Paid through', 'fiat_to_crypto', 'sandbox'] });
    expect(seen.searchProvider).toBe('sandbox');
    expect(seen.csv).toEqual({ railType: 'fiat_to_crypto', provider: 'sandbox' });
    expect(seen.stored).toEqual({ transactionProvider: 'sandbox', railType: 'fiat_to_crypto' });
  }, 120_000);
});
