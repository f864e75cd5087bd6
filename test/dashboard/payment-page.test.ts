import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ledgerAccount } from '../../src/domain/ledger';
import { formatCryptoAmount } from '../../src/domain/money';
import { balanceOf, payFromWallet, randomAddress } from '../support/chain';
import { approve, PASSWORD, secureOwner, signedUpOwner, type DashboardClient } from '../support/dashboard';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';
import { startReceiver } from '../support/receiver';
import { ledgerBalance, ownTreasury, unbalancedPostings } from '../payouts/support';
import { exceptionsOf, openSession, pressPay, sessionRow, waitForStatus } from '../proof/support';

// A payment's page over the dashboard's internal API: a payment paid through the sandbox, its
// timeline (created, Pay, the provider's facts, the credit with confirmations and explorer link,
// completion, payout, settlement, each webhook delivery with its attempts), its chain proof; then
// money paid to it again (a duplicate exception) refunded by an owner from the payment's page: once,
// on chain, whoever asks twice at once; not by a viewer or developer, not without a step-up, never
// to a refused address, and never on another merchant's payment (404).
const own = ownTreasury({ WEBHOOK_RETRY_BASE_SECONDS: '0.5' });
const token = own.chain.tokens.polygon.USDC;
const mailbox = useMailSink(own.overrides);
const ctx = useTestApp(own.overrides, { listen: true, worker: true, sandbox: true });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const stepUp = async (client: DashboardClient) => {
  const res = await client.call('POST', '/step-up', { password: PASSWORD });
  expect(res.statusCode).toBe(200);
};
const setRole = (email: string, role: string) => ctx.db.sql`update dashboard_users set role = ${role} where email = ${email}`;

/** A signed-up, approved merchant with a fresh USDC wallet on polygon, and a session it paid through the sandbox, settled. */
async function paidSession(email: string) {
  const owner = await signedUpOwner(ctx.app, mailbox, email, 'Timeline Shop');
  const apiKey = await approve(ctx.app, owner.merchantId);
  const wallet = randomAddress();
  const put = await ctx.app.inject({
    method: 'PUT',
    url: `/admin/v1/merchants/${owner.merchantId}/wallets`,
    headers: adminHeaders,
    payload: { asset: 'USDC', network: 'polygon', address: wallet },
  });
  expect(put.statusCode).toBe(200);
  const id = await openSession(ctx, apiKey, {
    orderId: 'order-77',
    metadata: { cart: 'c-1' },
    webhookUrl: `${receiver.url}/hooks`,
  });
  const g = await pressPay(ctx, id);
  const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
    body: { reference: id, outcome: 'succeeded' },
  });
  expect(paid.status).toBe(200);
  await waitForStatus(ctx, id, 'completed', 60_000);
  return { ...owner, apiKey, id, g, wallet };
}

describe('a payment’s page and its refunds', () => {
  it('shows the timeline, the proof and the deliveries; refunds a duplicate once, only for owners and admins after a step-up', async () => {
    const m = await paidSession('timeline@example.com');
    // The page's timeline follows the run: wait for the settlement and its delivery.
    const detail = await eventually(
      async () => (await m.client.call('GET', `/payments/${m.id}`)).json(),
      (d) =>
        d.timeline?.some((e: { title: string }) => e.title.startsWith('Settled')) &&
        d.deliveries?.some((x: { eventType: string; status: string }) => x.eventType === 'payment.settled' && x.status === 'succeeded'),
      90_000,
      'the settlement on the page',
    );
    expect(detail.payment).toMatchObject({
      id: m.id,
      status: 'completed',
      amount: '25.00',
      currency: 'USD',
      asset: 'USDC',
      network: 'polygon',
      railType: 'fiat_to_crypto',
      paidWith: 'provider',
      provider: 'sandbox',
      partlyPaid: null,
      orderId: 'order-77',
      metadata: { cart: 'c-1' },
      settlement: { gross: (Number(m.g) / 1e6).toFixed(6), transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    const kinds = detail.timeline.map((e: { kind: string }) => e.kind);
    // In the order it happened: created, then Pay, then the rest.
    expect(kinds.slice(0, 2)).toEqual(['created', 'pay_pressed']);
    for (const kind of ['provider', 'credit', 'status', 'payout', 'webhook']) expect(kinds, kind).toContain(kind);
    const times = detail.timeline.map((e: { at: string }) => e.at);
    expect([...times].sort()).toEqual(times);
    const credit = detail.timeline.find((e: { kind: string }) => e.kind === 'credit');
    expect(credit).toMatchObject({
      title: `Transfer of ${formatCryptoAmount(m.g)} USDC arrived`,
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      explorerUrl: expect.stringContaining(`/explorer/tx/${credit.transactionHash}`),
      confirmations: expect.stringMatching(/^[1-9]\d*$/),
    });
    const titles = detail.timeline.map((e: { title: string }) => e.title);
    expect(titles).toContain('Completed: the money is proven on chain');
    expect(titles.some((t: string) => t.startsWith('Payout to your wallet:'))).toBe(true);
    const completed = detail.deliveries.find((d: { eventType: string }) => d.eventType === 'payment.completed');
    expect(completed).toMatchObject({ url: `${receiver.url}/hooks`, status: 'succeeded', attempts: [{ statusCode: 200 }] });
    expect(detail.timeline).toContainEqual(
      expect.objectContaining({ kind: 'webhook', ref: completed.id, title: 'Webhook payment.completed' }),
    );
    expect(detail.exceptions).toEqual([]);

    // The proof: the deposit address, its balance read from the chain now (paid out: 0), the credited transfer.
    const proof = (await m.client.call('GET', `/payments/${m.id}/proof`)).json().proof;
    const { depositAddress } = await sessionRow(ctx, m.id);
    expect(proof).toMatchObject({
      depositAddress,
      verification: 'chain',
      credited: (Number(m.g) / 1e6).toFixed(6),
      chain: { balance: (Number(await balanceOf(own.chain, token, depositAddress)) / 1e6).toFixed(6) },
      credits: [{ transactionHash: credit.transactionHash, state: 'credited', explorerUrl: credit.explorerUrl }],
    });

    // Another merchant's owner: the same URLs are 404, as an unknown or malformed id is.
    const other = await signedUpOwner(ctx.app, mailbox, 'other@example.com', 'Other Shop');
    await approve(ctx.app, other.merchantId);
    // An owner steps up with a second factor (an admin, below, with the password alone).
    await secureOwner(other.client);
    for (const [method, url] of [
      ['GET', `/payments/${m.id}`],
      ['GET', `/payments/${m.id}/proof`],
      ['POST', `/payments/${m.id}/exceptions/exc_000000000000000000000000/refund`],
      ['POST', `/payments/${m.id}/refunds`],
      ['GET', '/payments/SV_000000000000000000000000'],
      ['GET', '/payments/nonsense'],
    ] as const) {
      const body = url.endsWith('/refunds') ? { amount: '1', address: randomAddress() } : { address: randomAddress() };
      const res = await other.client.call(method, url, method === 'POST' ? body : undefined);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, error: 'NotFound' });
    }

    // The customer pays again: a duplicate exception, held at the deposit address, and a refund address left on the page.
    await payFromWallet(own.chain, token, depositAddress, 3_000_000n);
    const [exception] = await eventually(
      () => exceptionsOf(ctx, m.id),
      (rows) => rows.length === 1,
      30_000,
      'the duplicate exception',
    );
    expect(exception!.kind).toBe('duplicate');
    await eventually(
      () =>
        ctx.temporal.workflow
          .getHandle(exception!.id)
          .describe()
          .then(
            () => true,
            () => false,
          ),
      (started) => started,
      20_000,
      'the exception’s run',
    );
    const customer = randomAddress();
    const saved = await http('POST', `${ctx.baseUrl}/pay/${m.id}/refund-address`, { body: { address: customer } });
    expect(saved.status).toBe(200);
    const withException = (await m.client.call('GET', `/payments/${m.id}`)).json();
    expect(withException.payment.refundAddress).toBe(customer);
    expect(withException.exceptions).toEqual([
      expect.objectContaining({ id: exception!.id, kind: 'duplicate', amount: '3.000000', status: 'open', refundable: true, refund: null }),
    ]);
    expect(withException.timeline).toContainEqual(expect.objectContaining({ kind: 'exception', ref: exception!.id }));

    const refundUrl = `/payments/${m.id}/exceptions/${exception!.id}/refund`;
    // Roles: viewers and developers read the page but never refund.
    for (const role of ['viewer', 'developer']) {
      await setRole('timeline@example.com', role);
      expect((await m.client.call('GET', `/payments/${m.id}`)).statusCode, role).toBe(200);
      const res = await m.client.call('POST', refundUrl, {});
      expect(res.statusCode, role).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, error: 'Forbidden' });
    }
    // An admin (as an owner) must step up first.
    await setRole('timeline@example.com', 'admin');
    const unconfirmed = await m.client.call('POST', refundUrl, {});
    expect(unconfirmed.statusCode).toBe(403);
    expect(unconfirmed.json().message).toMatch(/password/);
    await stepUp(m.client);
    // Refused addresses change nothing: malformed, a wrong checksum, the deposit address itself, the treasury.
    for (const address of ['0xabc', '0x52908400098527886E0F7030069857D2E4169Ee7', depositAddress, own.treasury]) {
      const res = await m.client.call('POST', refundUrl, { address });
      expect(res.statusCode, address).toBe(422);
      expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    }
    expect(await ctx.db.sql`select id from payouts where exception_id = ${exception!.id}`).toEqual([]);

    // Two clicks at once, without an address (the customer's): one refund, both answered with it.
    const [a, b] = await Promise.all([m.client.call('POST', refundUrl, {}), m.client.call('POST', refundUrl, {})]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json()).toMatchObject({ ok: true, exception: { id: exception!.id }, refund: { address: customer, amount: '3.000000' } });
    expect(b.json().refund.address).toBe(customer);
    // Another address while it is under way is a conflict.
    expect((await m.client.call('POST', refundUrl, { address: randomAddress() })).statusCode).toBe(409);
    // Audited as the admin who asked: both clicks found no refund under way, so one line or two, never more.
    const adminId = (await m.client.call('GET', '/me')).json().user.id;
    await setRole('timeline@example.com', 'owner');
    const audited = (await m.client.call('GET', '/audit-log'))
      .json()
      .entries.filter((e: { action: string }) => e.action === 'exception_refund.requested');
    expect(audited.length).toBeGreaterThanOrEqual(1);
    expect(audited.length).toBeLessThanOrEqual(2);
    for (const line of audited) {
      expect(line).toMatchObject({
        actor: { id: adminId, email: 'timeline@example.com' },
        target: exception!.id,
        details: { paymentId: m.id, kind: 'duplicate', amount: '3.000000', address: customer },
      });
    }
    await setRole('timeline@example.com', 'admin');

    await eventually(
      () => balanceOf(own.chain, token, customer),
      (balance) => balance === 3_000_000n,
      60_000,
      'the refund on chain',
    );
    const after = await eventually(
      async () => (await m.client.call('GET', `/payments/${m.id}`)).json(),
      (d) => d.exceptions[0]?.status === 'refunded' && d.deliveries.some((x: { eventType: string }) => x.eventType === 'payment.refunded'),
      30_000,
      'the refund on the page',
    );
    expect(after.exceptions[0]).toMatchObject({
      refundable: false,
      refund: { status: 'confirmed', address: customer, transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    expect(after.timeline).toContainEqual(
      expect.objectContaining({ kind: 'refund', ref: exception!.id, transactionHash: after.exceptions[0].refund.transactionHash }),
    );
    expect(after.timeline).toContainEqual(expect.objectContaining({ kind: 'exception_resolved', title: 'Exception refunded' }));
    // Once: one refund payout, one payment.refunded, the ledger balanced and the exception's account empty.
    const rows = await ctx.db.sql`select status from payouts where exception_id = ${exception!.id} and kind = 'refund'`;
    expect(rows).toEqual([{ status: 'confirmed' }]);
    const again = await m.client.call('POST', refundUrl, {});
    expect(again.json()).toMatchObject({ exception: { status: 'refunded' }, refund: { status: 'confirmed' } });
    expect(await balanceOf(own.chain, token, customer)).toBe(3_000_000n);
    expect(await ledgerBalance(ctx, ledgerAccount.exceptionHeld(exception!.id), 'USDC')).toBe(0n);
    expect(await unbalancedPostings(ctx)).toEqual([]);
    expect(receiver.received.filter((d) => d.body.event === 'payment.refunded' && d.body.sessionId === m.id)).toHaveLength(1);
  }, 240_000);
});
