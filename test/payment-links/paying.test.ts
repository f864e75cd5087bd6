import { WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { PaymentLinkInput, PaymentLinkOutcome } from '../../src/workflows/payment-link/messages';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { parseCrypto } from '../../src/domain/money';
import { payFromWallet, sharedChain } from '../support/chain';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// A payment link paid through its page: a checkout session per Pay, completed by confirmed
// transfers into its deposit address through the workflows on the dev server; paid at most once;
// expired by its workflow. The sandbox runs as the price source of the direct rail.
const ctx = useTestApp({}, { sandbox: true, worker: true });
const chain = sharedChain();

async function createLink(body: Record<string, unknown> = {}) {
  const m = await createApprovedMerchant(ctx.app, { name: 'Link Studio' });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/payment-links',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 30, currency: 'USD', description: 'Consulting, March', merchantOrderId: 'INV-9', ...body },
  });
  expect(res.statusCode).toBe(201);
  return { merchant: m, link: res.json().paymentLink as { id: string; url: string } };
}

const pay = (linkId: string, form = 'country=US', headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: `/link/${linkId}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form,
  });

function sessionIdFrom(location: string | undefined): string {
  const match = /\/pay\/(SV_[0-9A-Za-z]{24})$/.exec(location ?? '');
  expect(match, `redirect to a checkout page, got ${location}`).not.toBeNull();
  return match![1]!;
}

/** The customer pays the session from a wallet (the direct rail): the chain alone completes it. */
async function succeed(id: string) {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${id}/deposit` });
  expect(res.statusCode).toBe(200);
  const { address, amount } = res.json().deposit;
  await payFromWallet(chain, chain.tokens.polygon.USDC, address, parseCrypto(amount));
  return res;
}

const linkRow = async (id: string) => (await ctx.db.sql`select status, paid_session_id from payment_links where id = ${id}`)[0]!;
const sessionsOf = async (linkId: string) =>
  ctx.db.sql`select id, status, source from checkout_sessions where payment_link_id = ${linkId} order by created_at`;
const sessionStatus = async (id: string) => (await ctx.db.sql`select status from checkout_sessions where id = ${id}`)[0]!.status as string;

describe('paying a payment link', () => {
  it('opens a checkout session from the page, becomes paid when it completes, and cannot be paid again', async () => {
    const { merchant, link } = await createLink();
    const res = await pay(link.id);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${ctx.config.http.publicBaseUrl}/pay/${sessionIdFrom(res.headers.location as string)}`);
    const sessionId = sessionIdFrom(res.headers.location);

    const [session] = await ctx.db.sql`
      select merchant_id, source, payment_link_id, amount_minor, currency, country_code, merchant_order_id, status
      from checkout_sessions where id = ${sessionId}`;
    expect(session).toEqual({
      merchant_id: merchant.id,
      source: 'payment_link',
      payment_link_id: link.id,
      amount_minor: '3000',
      currency: 'USD',
      country_code: 'US',
      merchant_order_id: 'INV-9',
      status: 'pending',
    });
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${sessionId}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Link Studio');

    await succeed(sessionId);
    await eventually(
      () => sessionStatus(sessionId),
      (s) => s === 'completed',
      15_000,
      'session completed',
    );
    expect(await linkRow(link.id)).toEqual({ status: 'paid', paid_session_id: sessionId });

    // The completion told the link's workflow, which finished without waiting for expiry.
    const outcome = (await ctx.temporal.workflow.getHandle(link.id).result()) as PaymentLinkOutcome;
    expect(outcome).toEqual({ status: 'paid', paidSessionId: sessionId });

    const after = await ctx.app.inject({ method: 'GET', url: `/link/${link.id}` });
    expect(after.body).toContain('Already paid');
    expect(after.body).not.toContain('id="pay-button"');
    const again = await pay(link.id);
    expect(again.statusCode).toBe(409);
    expect(again.headers['content-type']).toContain('text/html');
    expect(again.body).toContain('can no longer be paid');
    expect(await sessionsOf(link.id)).toHaveLength(1);

    const lookup = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/payment-sessions/${sessionId}`,
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(lookup.json().paymentSession).toMatchObject({ status: 'completed', orderId: 'INV-9' });
  });

  it('keeps a declined link session open with what was chosen; once a session ended failed, the link retries with its country', async () => {
    const { link } = await createLink();
    const open = async (country: string) => {
      const sessionId = sessionIdFrom((await pay(link.id, `country=${country}`)).headers.location);
      const [{ deposit_address: walletAddress }] = (await ctx.db
        .sql`select deposit_address from checkout_sessions where id = ${sessionId}`) as unknown as [{ deposit_address: string }];
      return { id: sessionId, amount: '30.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
    };
    const send = (s: Awaited<ReturnType<typeof open>>, type: 'payment.processing' | 'payment.failed', failureReason?: string) =>
      postCallback(ctx.app, sandboxEvent(s, type, failureReason ? { failureReason } : {}), {
        secret: ctx.config.providers.sandbox.callbackSecret,
      });
    const page = async (id: string) => (await ctx.app.inject({ method: 'GET', url: `/pay/${id}` })).body;

    // A decline takes no money and ends nothing: the same session, its country kept, offers Pay again and the wallet.
    const declined = await open('GB');
    await send(declined, 'payment.failed');
    const body = await eventually(
      () => page(declined.id),
      (b) => b.includes('Payment declined'),
      15_000,
      'the decline on the page',
    );
    expect(body).toContain('id="pay-button">Try again</button>');
    expect(body).toContain('id="wallet-button"');
    expect(body).not.toContain('retry-link');
    expect((await ctx.db.sql`select status, country_code from checkout_sessions where id = ${declined.id}`)[0]).toEqual({
      status: 'pending',
      country_code: 'GB',
    });

    // Failed once under way: the session ended; a declined one points back to the link with its country.
    const failWith = async (failureReason: string) => {
      const s = await open('GB');
      await send(s, 'payment.processing');
      await send(s, 'payment.failed', failureReason);
      await eventually(
        () => sessionStatus(s.id),
        (st) => st === 'failed',
        15_000,
        'session failed',
      );
      return page(s.id);
    };
    const ended = await failWith('card_declined');
    expect(ended).toContain(`<a class="primary button" id="retry-link" href="/link/${link.id}?country=GB">Try again</a>`);
    const relinked = await ctx.app.inject({ method: 'GET', url: `/link/${link.id}?country=GB` });
    expect(relinked.body).toMatch(/<option value="GB" selected/);
    const undelivered = await failWith('delivery_failed');
    expect(undelivered).toContain('Payment failed');
    expect(undelivered).not.toContain('retry-link');
  });

  it('ends a second session when the link is paid, and records money still sent to a third as an exception, keeping the first as the payer', async () => {
    const { link } = await createLink();
    // Three tabs open the link; the third takes the deposit instructions first, which holds the link
    // (one tab pays at a time), and its customer then cancels it to pay in the first.
    const first = sessionIdFrom((await pay(link.id)).headers.location);
    const second = sessionIdFrom((await pay(link.id, 'country=GB')).headers.location);
    const third = sessionIdFrom((await pay(link.id, 'country=FR')).headers.location);
    const thirdDeposit = (await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${third}/deposit` })).json().deposit;
    expect((await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${first}/deposit` })).statusCode).toBe(409);
    expect((await ctx.app.inject({ method: 'POST', url: `/pay/${third}/cancel` })).statusCode).toBe(303);
    await eventually(
      () => sessionStatus(third),
      (s) => s === 'canceled',
      15_000,
      'third canceled',
    );
    await succeed(first);
    await eventually(
      () => linkRow(link.id),
      (r) => r.status === 'paid',
      15_000,
      'link paid',
    );
    // The link's other session ends, and hands out no instructions any more.
    await eventually(
      () => sessionStatus(second),
      (s) => s === 'canceled',
      15_000,
      'second canceled',
    );
    expect((await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${second}/deposit` })).statusCode).toBe(409);
    // The third customer's wallet sends anyway, from the instructions taken before.
    await payFromWallet(chain, chain.tokens.polygon.USDC, thirdDeposit.address, parseCrypto(thirdDeposit.amount));
    const exceptions = await eventually(
      () => ctx.db.sql`select kind, status, amount_micro from payment_exceptions where payment_id = ${third}`,
      (rows) => rows.length > 0,
      15_000,
      'exception recorded',
    );
    // Arriving after the link was paid through the other session, the money is a duplicate: the
    // merchant's to resolve and refund, never lost.
    expect(exceptions).toEqual([{ kind: 'duplicate', status: 'open', amount_micro: String(parseCrypto(thirdDeposit.amount)) }]);
    // Paid at most once: the third session does not complete, the link stays the first's.
    expect(await sessionStatus(third)).toBe('canceled');
    expect(await linkRow(link.id)).toEqual({ status: 'paid', paid_session_id: first });
    expect((await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${third}`)[0]!.n).toBe(0);
  });

  it('refuses a missing or unserved country with a 422 page, creating no session', async () => {
    const { link } = await createLink();
    for (const form of ['', 'country=', 'country=USA', 'country=KP']) {
      const res = await pay(link.id, form);
      expect(res.statusCode, form).toBe(422);
      expect(res.headers['content-type']).toContain('text/html');
    }
    expect(await sessionsOf(link.id)).toHaveLength(0);
  });

  it('refuses a form post from another origin, and pays nothing while payments are disabled', async () => {
    const { link } = await createLink();
    expect((await pay(link.id, 'country=US', { origin: 'https://evil.example' })).statusCode).toBe(403);
    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: false } });
    try {
      expect((await pay(link.id)).statusCode).toBe(403);
      expect((await ctx.app.inject({ method: 'GET', url: `/link/${link.id}` })).body).toContain('temporarily unavailable');
    } finally {
      await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    }
    expect(await sessionsOf(link.id)).toHaveLength(0);
    expect((await pay(link.id, 'country=US', { origin: ctx.config.http.publicBaseUrl })).statusCode).toBe(303);
  });
});

describe('payment link expiry', () => {
  // The API's shortest lifetime is 5 minutes, so the test runs the link's workflow itself on the
  // worker's task queue with an expiresAt a moment away, in place of the run the API started.
  async function runLinkWorkflow(linkId: string, expiresInMs: number): Promise<PaymentLinkOutcome> {
    await ctx.temporal.workflow
      .getHandle(linkId)
      .terminate('test: replaced by a run that expires sooner')
      .catch((err: unknown) => {
        // A paid link's run has already finished.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
    const input: PaymentLinkInput = { linkId, expiresAt: new Date(Date.now() + expiresInMs).toISOString() };
    const handle = await ctx.temporal.workflow.start('paymentLink', {
      workflowId: linkId,
      taskQueue: ctx.config.temporal.taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
    return (await handle.result()) as PaymentLinkOutcome;
  }

  it('expires an unpaid link at expiresAt: its page says so and Pay creates no session', async () => {
    const { link } = await createLink();
    expect(await runLinkWorkflow(link.id, 1000)).toEqual({ status: 'expired', paidSessionId: null });
    expect(await linkRow(link.id)).toEqual({ status: 'expired', paid_session_id: null });
    const page = await ctx.app.inject({ method: 'GET', url: `/link/${link.id}` });
    expect(page.body).toContain('Link expired');
    expect(page.body).not.toContain('id="pay-button"');
    const res = await pay(link.id);
    expect(res.statusCode).toBe(409);
    expect(await sessionsOf(link.id)).toHaveLength(0);
  });

  it('never expires a link that was paid, even if its workflow did not hear of the payment', async () => {
    const { link } = await createLink();
    const sessionId = sessionIdFrom((await pay(link.id)).headers.location);
    await succeed(sessionId);
    await eventually(
      () => linkRow(link.id),
      (r) => r.status === 'paid',
      15_000,
      'link paid',
    );
    // The session's workflow told the link's run, which ended at once; a run that hears nothing
    // (started here in its place) finds the link paid in Postgres at expiry and leaves it so.
    expect(await ctx.temporal.workflow.getHandle(link.id).result()).toEqual({ status: 'paid', paidSessionId: sessionId });
    expect(await runLinkWorkflow(link.id, 500)).toEqual({ status: 'paid', paidSessionId: null });
    expect(await linkRow(link.id)).toEqual({ status: 'paid', paid_session_id: sessionId });
  });

  it('treats a link past its expiresAt as expired before its workflow has run', async () => {
    const { link } = await createLink();
    await ctx.db.sql`update payment_links set expires_at = now() - interval '1 second' where id = ${link.id}`;
    expect((await ctx.app.inject({ method: 'GET', url: `/link/${link.id}` })).body).toContain('Link expired');
    expect((await pay(link.id)).statusCode).toBe(409);
    expect(await sessionsOf(link.id)).toHaveLength(0);
  });
});
