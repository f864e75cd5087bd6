import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedPaymentRefundedEventSchema } from '../../src/api/webhook-schemas';
import { formatCrypto } from '../../src/domain/money';
import { balanceOf, randomAddress } from '../support/chain';
import { approve, PASSWORD, secureOwner, signedUpOwner } from '../support/dashboard';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';
import { startReceiver } from '../support/receiver';
import { ledgerBalance, ownTreasury, payoutsOf, reconciliationDifferences, unbalancedPostings } from '../payouts/support';
import { openSession, pressPay, waitForStatus } from '../proof/support';

// A completed payment refunded end to end on the run's anvil, drawn from its merchant's balance (the
// merchant is paid out manually, so their balance holds two payments' shares after the sweep) and
// sent from the treasury: part from the dashboard (an admin after a step-up; never a viewer or
// developer, never another merchant), the rest through the operators' API; the customer's balance
// rises by exactly what was refunded, once per refund; a third refund is refused in the envelope;
// two payment.refunded events; the merchant's payout asked for then pays exactly what the refunds
// left of their balance; the ledger balances and reconciles.
const own = ownTreasury({ WEBHOOK_RETRY_BASE_SECONDS: '0.5' });
const token = own.chain.tokens.polygon.USDC;
const mailbox = useMailSink(own.overrides);
const ctx = useTestApp(own.overrides, { listen: true, worker: true, sandbox: true });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const setRole = (email: string, role: string) => ctx.db.sql`update dashboard_users set role = ${role} where email = ${email}`;

/** A session of the merchant paid through the sandbox, completed, and its deposit swept into the treasury. */
async function paidAndSwept(apiKey: string, amount: number) {
  const id = await openSession(ctx, apiKey, { amount, webhookUrl: `${receiver.url}/hooks` });
  const g = await pressPay(ctx, id);
  const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
    body: { reference: id, outcome: 'succeeded' },
  });
  expect(paid.status).toBe(200);
  await waitForStatus(ctx, id, 'completed', 60_000);
  await eventually(
    async () => (await payoutsOf(ctx, id)).map((p) => `${p.kind}:${p.status}`),
    (ps) => ps.includes('sweep:confirmed'),
    90_000,
    `the deposit of ${id} swept`,
  );
  return { id, g };
}

const refundsOf = (paymentId: string) =>
  ctx.db
    .sql`select id, status, amount_micro, address, tx_hash, requested_by from payment_refunds where payment_id = ${paymentId} order by created_at`;

describe('refunds of a completed payment', () => {
  it('refunds part then the rest on chain from the balance, once each; refuses a third; pays out what is left', async () => {
    const email = 'refunds@example.com';
    const owner = await signedUpOwner(ctx.app, mailbox, email, 'Refund Shop');
    const apiKey = await approve(ctx.app, owner.merchantId);
    const wallet = randomAddress();
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `/admin/v1/merchants/${owner.merchantId}/wallets`,
      headers: adminHeaders,
      payload: { asset: 'USDC', network: 'polygon', address: wallet },
    });
    expect(put.statusCode).toBe(200);
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${owner.merchantId}`;
    // Two payments in the balance: together their shares cover a refund of the first one whole.
    const a = await paidAndSwept(apiKey, 25);
    const b = await paidAndSwept(apiKey, 25);
    const customer = randomAddress();
    // The checkout collects a refund address only while money of an exception is owed (refund-addresses.ts):
    // kept on the session as the page would keep it.
    await ctx.db.sql`update checkout_sessions set refund_address = ${customer} where id = ${a.id}`;

    const url = `/payments/${a.id}/refunds`;
    const page = (await owner.client.call('GET', `/payments/${a.id}`)).json();
    // The form's default: the whole gross, to the customer's address.
    expect(page.refunds).toEqual({ refundable: true, refundableAmount: formatCrypto(a.g), refunds: [] });
    expect(page.payment.refundAddress).toBe(customer);

    // Viewers and developers read the page but never refund; an admin must step up first.
    const part = a.g / 3n;
    for (const role of ['viewer', 'developer']) {
      await setRole(email, role);
      const res = await owner.client.call('POST', url, { amount: formatCrypto(part) });
      expect([res.statusCode, res.json().error], role).toEqual([403, 'Forbidden']);
    }
    await setRole(email, 'admin');
    const unconfirmed = await owner.client.call('POST', url, { amount: formatCrypto(part) });
    expect(unconfirmed.statusCode).toBe(403);
    expect((await owner.client.call('POST', '/step-up', { password: PASSWORD })).statusCode).toBe(200);
    // Refused before anything is written: no amount, too much, a refused address.
    for (const [body, path] of [
      [{ amount: '0' }, 'amount'],
      [{ amount: formatCrypto(a.g + 1n) }, 'amount'],
      [{ amount: '1.0000001' }, 'amount'],
      [{ amount: '1', address: own.treasury }, 'address'],
    ] as const) {
      const res = await owner.client.call('POST', url, body);
      expect([res.statusCode, res.json().error], JSON.stringify(body)).toEqual([422, 'ValidationError']);
      expect(res.json().details[0].path).toBe(path);
    }
    // Another merchant's owner: 404, as an unknown payment is.
    const other = await signedUpOwner(ctx.app, mailbox, 'refunds-other@example.com', 'Other Shop');
    await approve(ctx.app, other.merchantId);
    await secureOwner(other.client);
    for (const otherUrl of [url, '/payments/SV_000000000000000000000000/refunds']) {
      const res = await other.client.call('POST', otherUrl, { amount: '1', address: randomAddress() });
      expect([res.statusCode, res.json().error], otherUrl).toEqual([404, 'NotFound']);
    }
    expect(await refundsOf(a.id)).toEqual([]);

    // Part, from the dashboard, to the customer's address (the default).
    // Sent twice at once with the form's key (a double click): one refund, both answered with it.
    const requestKey = 'form-key-0001';
    const [first, twice] = await Promise.all([
      owner.client.call('POST', url, { amount: formatCrypto(part), requestKey }),
      owner.client.call('POST', url, { amount: formatCrypto(part), requestKey }),
    ]);
    expect([first.statusCode, twice.statusCode]).toEqual([201, 201]);
    expect(twice.json().refund.id).toBe(first.json().refund.id);
    const reused = await owner.client.call('POST', url, { amount: '1', requestKey });
    expect([reused.statusCode, reused.json().error]).toEqual([409, 'Conflict']);
    expect(first.json().refund).toMatchObject({ paymentId: a.id, amount: formatCrypto(part), address: customer, status: 'requested' });
    await eventually(
      () => balanceOf(own.chain, token, customer),
      (b) => b === part,
      60_000,
      'the first refund on chain',
    );
    // The rest, through the operators' API (no address: the customer's).
    const rest = a.g - part;
    const second = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/payments/${a.id}/refunds`,
      headers: adminHeaders,
      payload: { amount: formatCrypto(rest) },
    });
    expect(second.statusCode).toBe(201);
    expect(second.json().refund).toMatchObject({ amount: formatCrypto(rest), address: customer, requestedBy: 'admin' });
    const rows = await eventually(
      () => refundsOf(a.id),
      (r) => r.length === 2 && r.every((x) => x.status === 'refunded'),
      60_000,
      'both refunds confirmed',
    );
    expect(await balanceOf(own.chain, token, customer)).toBe(a.g);
    expect(rows.map((r) => r.requested_by)).toEqual([expect.stringMatching(/^dashboard:/), 'admin']);
    // Once each: one payout per refund, from the treasury.
    const refundPayouts = (await payoutsOf(ctx, a.id))
      .filter((p) => p.kind === 'payment_refund')
      .sort((x, y) => (x.amount < y.amount ? -1 : 1));
    expect(refundPayouts.map((p) => [p.from, p.to, p.amount, p.status])).toEqual([
      [own.treasury, customer, part, 'confirmed'],
      [own.treasury, customer, rest, 'confirmed'],
    ]);

    // A third: nothing is left to refund.
    const third = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/payments/${a.id}/refunds`,
      headers: adminHeaders,
      payload: { amount: '0.000001', address: customer },
    });
    expect(third.statusCode).toBe(422);
    expect(third.json()).toMatchObject({ ok: false, error: 'ValidationError', message: 'This payment has been refunded in full.' });
    expect(await refundsOf(a.id)).toHaveLength(2);

    // Two payment.refunded events, one per refund.
    const events = await eventually(
      async () => receiver.received.filter((d) => d.body.event === 'payment.refunded' && d.body.sessionId === a.id),
      (d) => d.length === 2,
      20_000,
      'two payment.refunded',
    );
    expect(new Set(events.map((e) => e.body.eventId)).size).toBe(2);
    for (const e of events) expect(completedPaymentRefundedEventSchema.strict().safeParse(e.body).success).toBe(true);
    expect(events.map((e) => e.body.refundId).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(events.map((e) => e.body.refund.transactionHash).sort()).toEqual(rows.map((r) => r.tx_hash).sort());
    const after = (await owner.client.call('GET', `/payments/${a.id}`)).json();
    expect(after.refunds).toMatchObject({ refundable: false, refundableAmount: '0.000000' });
    expect(after.timeline.filter((e: { kind: string }) => e.kind === 'refund')).toHaveLength(2);

    // The refunds came out of the balance; the merchant asks for their payout: exactly the rest is paid.
    const [shares] = await ctx.db
      .sql`select sum(merchant_settlement_micro)::text as s from transactions where payment_id in ${ctx.db.sql([a.id, b.id])}`;
    const left = BigInt(shares!.s as string) - a.g;
    expect(await ledgerBalance(ctx, `merchant:${owner.merchantId}:available`, 'USDC')).toBe(-left);
    const walletBefore = await balanceOf(own.chain, token, wallet);
    const asked = await owner.client.call('POST', '/payout-settings/request');
    expect(asked.statusCode).toBe(200);
    await eventually(
      () => balanceOf(own.chain, token, wallet),
      (w) => w - walletBefore === left,
      60_000,
      'the rest paid out',
    );
    // The transfer lands before the run writes its confirmation: wait for the ledger, not the chain.
    const accounts = ['available', 'reserved', 'outgoing'] as const;
    await eventually(
      () => Promise.all(accounts.map((a) => ledgerBalance(ctx, `merchant:${owner.merchantId}:${a}`, 'USDC'))),
      (balances) => balances.every((b) => b === 0n),
      60_000,
      'the payout confirmed in the ledger',
    );
    expect(await unbalancedPostings(ctx)).toEqual([]);
    expect(await reconciliationDifferences(ctx)).toEqual([]);
  }, 400_000);
});
