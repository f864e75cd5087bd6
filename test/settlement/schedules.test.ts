import { describe, expect, it } from 'vitest';
import { balanceOf, payFromWallet, randomAddress, sharedChain } from '../support/chain';
import { approve, secureOwner, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';
import { openSession, pressPay, sessionRow, waitForStatus } from '../proof/support';

// A merchant's payout schedule and minimum (docs/settlement.md), set in the dashboard by an owner
// after a step-up: a manual schedule pays nothing until the merchant asks; a minimum holds smaller
// balances back; the deposits are swept all the same. Runs every second here.
describe('payout schedules and minimums', () => {
  const mailbox = useMailSink();
  // The sink's settings are filled in before the app starts: the same object, with the file's own.
  const ctx = useTestApp(Object.assign(mailbox.env, { PAYOUT_INTERVAL_SECONDS: '1' }), {
    listen: true,
    sandbox: true,
    worker: true,
  });
  const chain = sharedChain();
  const usdc = () => chain.tokens.polygon.USDC;

  it('pays on request under a manual schedule, and holds a balance below the minimum back', async () => {
    const owner = await signedUpOwner(ctx.app, mailbox, 'schedules@example.com', 'Schedule Shop');
    const apiKey = await approve(ctx.app, owner.merchantId);
    await secureOwner(owner.client);
    const wallet = randomAddress();
    expect((await owner.client.call('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: wallet })).statusCode).toBe(200);
    const fresh = (await owner.client.call('GET', '/payout-settings')).json();
    expect(fresh).toMatchObject({ ok: true, schedule: 'instant', minimum: '0.000000', requestedAt: null, balances: [] });
    // The merchant's top-up address on each network, the one the merchant API shows.
    expect(fresh.topUpAddresses).toEqual(
      (await http('GET', `${ctx.baseUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${apiKey}` } })).json.topUpAddresses,
    );
    expect(fresh.topUpAddresses.length).toBe(ctx.config.chains.networks.length);
    for (const [body, path] of [
      [{ schedule: 'hourly', minimum: '0' }, 'schedule'],
      [{ schedule: 'manual', minimum: 'ten' }, 'minimum'],
      [{ schedule: 'manual', minimum: '-1' }, 'minimum'],
    ] as const) {
      const res = await owner.client.call('POST', '/payout-settings', body);
      expect([res.statusCode, res.json().details?.[0]?.path], JSON.stringify(body)).toEqual([422, path]);
    }
    const manual = await owner.client.call('POST', '/payout-settings', { schedule: 'manual', minimum: '0' });
    expect(manual.json()).toMatchObject({ schedule: 'manual', minimum: '0.000000' });

    const pay = async (amount: number) => {
      const id = await openSession(ctx, apiKey, { amount });
      const gross = await pressPay(ctx, id);
      await payFromWallet(chain, usdc(), (await sessionRow(ctx, id)).depositAddress, gross);
      await waitForStatus(ctx, id, 'completed');
      return { id };
    };
    const swept = (id: string) =>
      eventually(
        () => ctx.db.sql`select 1 from payout_items i join payouts p on p.id = i.payout_id
                          where i.payment_id = ${id} and p.kind = 'sweep' and p.status = 'confirmed'`,
        (rows) => rows.length === 1,
        30_000,
        `${id} swept`,
      );
    // A whole run of the network, after which its payout planning has certainly seen the balance.
    let runs = 0;
    const runOnce = () =>
      ctx.temporal.workflow.execute('settlementRun', {
        workflowId: `settlement-now-${owner.merchantId}-${++runs}`,
        taskQueue: ctx.config.temporal.taskQueue,
        args: [{ networks: ['polygon'] }],
      });
    const paidOut = (id: string) =>
      ctx.db.sql`select 1 from payout_items i join payouts p on p.id = i.payout_id where i.payment_id = ${id} and p.kind = 'merchant'`;

    // Manual: swept into the treasury, and still the merchant's available balance, unpaid.
    const first = await pay(12);
    await swept(first.id);
    await runOnce();
    expect(await paidOut(first.id)).toEqual([]);
    const held = (await owner.client.call('GET', '/payout-settings')).json();
    expect(held.balances).toEqual([expect.objectContaining({ network: 'polygon', asset: 'USDC', available: expect.any(String) })]);
    expect(Number(held.balances[0].available)).toBeGreaterThan(0);

    // Asked for: the next run pays it.
    const asked = await owner.client.call('POST', '/payout-settings/request');
    expect(asked.json().requestedAt).not.toBeNull();
    await eventually(
      () => balanceOf(chain, usdc(), wallet),
      (b) => b > 0n,
      30_000,
      'the requested payout',
    );
    const paid = await balanceOf(chain, usdc(), wallet);

    // Instant with a minimum above the balance: swept, held back.
    const minimum = await owner.client.call('POST', '/payout-settings', { schedule: 'instant', minimum: '1000' });
    expect(minimum.json()).toMatchObject({ schedule: 'instant', minimum: '1000.000000' });
    const second = await pay(9);
    await swept(second.id);
    await runOnce();
    expect(await paidOut(second.id)).toEqual([]);
    expect(await balanceOf(chain, usdc(), wallet)).toBe(paid);

    const audit = await ctx.db
      .sql`select action from dashboard_audit_log where merchant_id = ${owner.merchantId} and action like 'payout%' order by id`;
    expect(audit.map((a) => a.action)).toEqual(['payout_settings.changed', 'payout.requested', 'payout_settings.changed']);
  }, 120_000);
});
