import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { payFromWallet, randomAddress, sharedChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { findPaymentException } from '../../src/db/queries/payment-exceptions';
import { runOf } from '../../src/payments/exception-actions';
import { acceptUpdate } from '../../src/workflows/payment-exception/messages';
import { PaymentStatusKey } from '../../src/workflows/search-attributes';
import { replayRuns } from './histories';

// Runs of the paymentException workflow: one accepted by an operator (an update), its money joining
// the merchant's balance, one
// refunded on chain (an update, then the transfer), one still open. The money of each arrives on
// chain after the session expired.
const ctx = useTestApp({ SESSION_TTL_SECONDS: '2' }, { sandbox: true, worker: true });
const chain = sharedChain();

describe('paymentException histories', () => {
  it('replays the current code’s own runs: accepted (into the balance), refunded, open', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    const id = res.json().checkoutSession.id as string;
    const [{ deposit_address: depositAddress }] = (await ctx.db
      .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: Address }];
    expect((await ctx.temporal.workflow.getHandle(id).result()) as { status: string }).toMatchObject({ status: 'expired' });
    // Three late transfers: three arrivals, three exceptions, each with its own run.
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, 25_000_000n);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, 1_000_000n);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, 2_000_000n);
    const rows = await eventually(
      () => ctx.db.sql`select id, amount_micro from payment_exceptions where payment_id = ${id} order by created_at`,
      (r) => r.length === 3,
      20_000,
      'three exceptions',
    );
    const accepted = rows.find((r) => r.amount_micro === '25000000')!.id as string;
    const open = rows.find((r) => r.amount_micro === '1000000')!.id as string;
    const refunded = rows.find((r) => r.amount_micro === '2000000')!.id as string;
    const answer = await ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${accepted}/accept`, headers: adminHeaders });
    expect(answer.statusCode).toBe(200);
    // The run ends once the completion is announced: the money is the merchant's balance, which a settlement run pays.
    expect(await ctx.temporal.workflow.getHandle(accepted).result()).toBe('accepted');
    const [completion] = await ctx.db.sql`select count(*)::int as n from ledger_entries where posting_id = ${`completion:${id}`}`;
    expect(completion!.n).toBe(3);
    const back = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${refunded}/refund`,
      headers: adminHeaders,
      payload: { address: randomAddress() },
    });
    expect(back.statusCode).toBe(200);
    expect(await ctx.temporal.workflow.getHandle(refunded).result()).toBe('refunded');
    await eventually(
      () =>
        ctx.db.sql`select count(*)::int as n from events where payment_id = ${id} and type = 'payment.exception'`.then(
          (r) => r[0]!.n as number,
        ),
      (n) => n === 3,
      10_000,
      'events',
    );
    await replayRuns(ctx.temporal, 'payment-exception', { accepted, refunded, open });

    // A second accept that reached Temporal as the first run closed (the API answers one that comes
    // later from the row): the API's update-with-start gives it a run of its own, which finds the
    // exception accepted, completes nothing again and still carries the payment's status.
    const firstRun = (await ctx.temporal.workflow.getHandle(accepted).describe()).runId;
    const row = (await findPaymentException(ctx.db.db, accepted))!;
    const again = await ctx.temporal.workflow.executeUpdateWithStart(acceptUpdate, {
      startWorkflowOperation: runOf(ctx.app.payments.context, row),
    });
    expect(again).toEqual({ exceptionId: accepted, paymentId: id, paymentStatus: 'completed' });
    const second = ctx.temporal.workflow.getHandle(accepted);
    expect(await second.result()).toBe('accepted');
    const run = await second.describe();
    expect(run.runId).not.toBe(firstRun);
    expect(run.typedSearchAttributes.get(PaymentStatusKey)).toBe('completed');
    const [postings] = await ctx.db.sql`select count(*)::int as n from ledger_entries where posting_id = ${`completion:${id}`}`;
    expect(postings!.n).toBe(3);
    await replayRuns(ctx.temporal, 'payment-exception', { acceptedAgain: accepted });
  }, 90_000);

  it('replays a run whose acceptance paid a payment link (its other sessions ended, its run told)', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const link = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/payment-links',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD' },
    });
    const linkId = link.json().paymentLink.id as string;
    const tab = async () => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/link/${linkId}/pay`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'country=US',
      });
      return /\/pay\/(SV_[0-9A-Za-z]{24})$/.exec(String(res.headers.location))![1]!;
    };
    const late = await tab();
    const deposit = await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${late}/deposit` });
    expect((await ctx.temporal.workflow.getHandle(late).result()) as { status: string }).toMatchObject({ status: 'expired' });
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json().deposit.address as Address, 25_000_000n);
    const [row] = await eventually(
      () => ctx.db.sql`select id from payment_exceptions where payment_id = ${late}`,
      (r) => r.length === 1,
      20_000,
      'the late exception',
    );
    const acceptedLink = row!.id as string;
    const answer = await ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${acceptedLink}/accept`, headers: adminHeaders });
    expect(answer.statusCode).toBe(200);
    expect(await ctx.temporal.workflow.getHandle(acceptedLink).result()).toBe('accepted');
    const [paid] = await ctx.db.sql`select status, paid_session_id from payment_links where id = ${linkId}`;
    expect(paid).toEqual({ status: 'paid', paid_session_id: late });
    await replayRuns(ctx.temporal, 'payment-exception', { acceptedLink });
  }, 90_000);
});
