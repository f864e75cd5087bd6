import { describe, expect, it } from 'vitest';
import { sweepUnstartedPayments } from '../../src/payments/sweep';
import { createApprovedMerchant, useTestApp } from '../support/harness';

// An API process killed between a payment's row insert and its workflow start leaves an invisible
// row; the sweep resolves it within one interval (decisions §9: retries open it afresh).
const ctx = useTestApp();

async function invisibleSession(merchantId: string, id: string, secondsAgo: number) {
  await ctx.db.sql`
    insert into checkout_sessions (id, merchant_id, amount_minor, currency, country_code, destination_asset, network, wallet_address,
      commission_bps, provider, rail_type, expires_at, created_at)
    values (${id}, ${merchantId}, 2500, 'USD', 'US', 'USDC', 'polygon', '0x52908400098527886E0F7030069857D2E4169EE7',
      100, 'sandbox', 'fiat_to_crypto', now() + interval '1 day', now() - make_interval(secs => ${secondsAgo}))`;
}
const sessionRow = async (id: string) => (await ctx.db.sql`select workflow_started from checkout_sessions where id = ${id}`)[0];

describe('the sweep of payments whose opening was cut short', () => {
  it('removes an old invisible row with no workflow, makes one whose workflow runs visible, and leaves young rows alone', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const orphan = `SV_sweepOrphan${Date.now()}`;
    const started = `SV_sweepStarted${Date.now()}`;
    const young = `SV_sweepYoung${Date.now()}`;
    await invisibleSession(m.id, orphan, 120);
    await invisibleSession(m.id, started, 120);
    await invisibleSession(m.id, young, 1);
    // The process died after starting this one's workflow but before marking the row.
    await ctx.temporal.workflow.start('checkoutSession', {
      workflowId: started,
      taskQueue: `${ctx.config.temporal.taskQueue}-nobody`,
      args: [{ paymentId: started, merchantId: m.id, provider: 'sandbox', expiresAt: new Date(Date.now() + 60_000).toISOString() }],
    });

    const result = await ctx.app.payments.sweepUnstartedPayments();
    expect(result).toEqual({ started: 1, removed: 1 });
    expect(await sessionRow(orphan)).toBeUndefined();
    expect(await sessionRow(started)).toEqual({ workflow_started: true });
    expect(await sessionRow(young)).toEqual({ workflow_started: false });
    // Nothing left for a second sweep; another process sweeping at once is harmless.
    expect(await sweepUnstartedPayments(ctx.app.payments.context)).toEqual({ started: 0, removed: 0 });
    await ctx.temporal.workflow.getHandle(started).terminate('test done');
  });

  it('lets the same Idempotency-Key through again once a claim has been abandoned for 30 seconds', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = { amount: 12, currency: 'USD', countryCode: 'US' };
    const send = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': 'crashed-once' },
        payload: body,
      });
    // A claim left by a request whose process died: in progress, same request hash.
    const first = await send();
    expect(first.statusCode).toBe(201);
    await ctx.db.sql`update idempotency_keys set state = 'in_progress', response_status = null, response_body = null, created_at = now() - interval '20 seconds' where key = 'crashed-once'`;
    expect((await send()).statusCode).toBe(409);
    await ctx.db.sql`update idempotency_keys set created_at = now() - interval '31 seconds' where key = 'crashed-once'`;
    expect((await send()).statusCode).toBe(201);
  });
});
