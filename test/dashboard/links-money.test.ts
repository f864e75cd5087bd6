import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkoutSessions, payoutItems, payouts } from '../../src/db/schema';
import type { Database } from '../../src/db/client';
import { settlementsCsv } from '../../src/domain/settlements-csv';
import type { Mailer } from '../../src/mail/mailer';
import { merchantMoney } from '../../src/payments/merchant-money';
import { settledTransactions } from '../../src/db/queries/settlements';
import { approve, secureOwner, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';
import { seedBalance } from '../support/seed-balance';
import { seedPayment } from '../support/seed-payment';

// Payment links (made by the v1 API's use case) and the merchant's
// money (settlement wallets behind a step-up and a mail to the owners; payouts, settlements and
// their CSV; the home figures). Roles, and nothing of another merchant's shown or changed.
const WALLET = '0x52908400098527886e0f7030069857d2e4169ee7';
const CHECKSUMMED = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('dashboard payment links and money', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  async function approvedOwner(email: string, name = 'Corner Shop') {
    const owner = await signedUpOwner(ctx.app, mailbox, email, name);
    await approve(ctx.app, owner.merchantId);
    await secureOwner(owner.client);
    // The approval's and the second factor's notices go through the mail outbox: arrived before the test counts mails.
    await mailbox.waitFor(email, /is approved/);
    await mailbox.waitFor(email, /Two-factor authentication is on/);
    const set = await owner.client.call('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: WALLET });
    expect(set.statusCode, set.body).toBe(200);
    return owner;
  }

  it('changes a settlement wallet only for an owner or admin after a step-up, checksummed, and tells the owners', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'wallets@example.com', 'Wallet Shop');
    expect((await client.call('GET', '/wallets')).json()).toEqual({ ok: true, wallets: [] });
    const noStepUp = await client.call('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: WALLET });
    expect([noStepUp.statusCode, noStepUp.json().error]).toEqual([403, 'Forbidden']);
    // An owner is asked for a second factor first, then for a step-up with it.
    expect(noStepUp.json().message).toMatch(/two-factor/);
    await secureOwner(client);
    for (const [body, path] of [
      [{ asset: 'USDC', network: 'polygon', address: '0x52908400098527886E0F7030069857D2E4169Ee7' }, 'wallets.0.address'],
      [{ asset: 'USDC', network: 'polygon', address: 'not-an-address' }, 'wallets.0.address'],
      [{ asset: 'USDT', network: 'base', address: WALLET }, 'wallets.0'],
    ] as const) {
      const res = await client.call('POST', '/wallets', body);
      expect([res.statusCode, res.json().error, res.json().details?.[0]?.path], JSON.stringify(body)).toEqual([
        422,
        'ValidationError',
        path,
      ]);
    }
    expect((await client.call('GET', '/wallets')).json().wallets).toEqual([]);

    const set = await client.call('POST', '/wallets', { asset: 'usdc', network: 'Polygon', address: WALLET });
    expect(set.statusCode).toBe(200);
    expect(set.json().wallet).toMatchObject({ asset: 'USDC', network: 'polygon', address: CHECKSUMMED });
    const mail = await mailbox.waitFor('wallets@example.com', /Settlement wallet changed: USDC on Polygon/);
    expect(mail.text).toContain(`Now:    ${CHECKSUMMED}`);
    expect(mail.text).toContain('Before: (none)');
    expect(mail.text).toContain('changed by wallets@example.com');
    const [row] = await ctx.db.sql`select address from merchant_wallets where merchant_id = ${merchantId}`;
    expect(row!.address).toBe(CHECKSUMMED);

    for (const role of ['developer', 'viewer'] as const) {
      await ctx.db.sql`update dashboard_users set role = ${role} where email = 'wallets@example.com'`;
      const res = await client.call('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: '0x' + '1'.repeat(40) });
      expect([res.statusCode, res.json().error], role).toEqual([403, 'Forbidden']);
      expect((await client.call('GET', '/wallets')).json().wallets, role).toHaveLength(1);
    }
    // An admin changes it: the owner (another person now) is told, not the admin.
    await ctx.db.sql`update dashboard_users set role = 'admin' where email = 'wallets@example.com'`;
    await ctx.db.sql`insert into dashboard_users (id, merchant_id, email, password_hash, role, email_verified_at)
      values ('usr_walletsowner0001', ${merchantId}, 'boss@example.com', 'x', 'owner', now())`;
    const byAdmin = await client.call('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: '0x' + '1'.repeat(40) });
    expect(byAdmin.statusCode).toBe(200);
    const boss = await mailbox.waitFor('boss@example.com', /Settlement wallet changed/);
    expect(boss.text).toContain(`Before: ${CHECKSUMMED}`);
    expect(boss.text).toContain('changed by wallets@example.com');
    expect(mailbox.messages().filter((m) => m.to.includes('wallets@example.com') && /wallet changed/.test(m.subject))).toHaveLength(1);
  });

  it('leaves the wallet as it was when the owners cannot be told by mail', async () => {
    const owner = await approvedOwner('no-mail@example.com');
    const failing: Mailer = { send: () => Promise.reject(new Error('SMTP is down')), close: () => {} };
    const money = merchantMoney(ctx.app.payments.context, failing);
    const me = (await owner.client.call('GET', '/me')).json().user;
    const actor = { userId: me.id, email: me.email, role: me.role, merchantId: owner.merchantId, ip: owner.client.ip };
    const change = money.setWallet(actor, { asset: 'USDC', network: 'polygon', address: '0x' + '3'.repeat(40) });
    await expect(change).rejects.toMatchObject({ code: 'Unavailable' });
    expect((await owner.client.call('GET', '/wallets')).json().wallets).toEqual([expect.objectContaining({ address: CHECKSUMMED })]);
    // Nor its audit line: the one there is the wallet's first setting.
    const lines = (await owner.client.call('GET', '/audit-log'))
      .json()
      .entries.filter((e: { action: string }) => e.action === 'wallet.changed');
    expect(lines.map((e: { details: unknown }) => e.details)).toEqual([{ asset: 'USDC', network: 'polygon', from: null, to: CHECKSUMMED }]);
  });

  it('creates a link as the v1 API does, lists it with its sessions, and deactivates it; viewers only read', async () => {
    const pending = await signedUpOwner(ctx.app, mailbox, 'pending-links@example.com');
    const refused = await pending.client.call('POST', '/payment-links', { amount: 25, currency: 'USD' });
    expect([refused.statusCode, refused.json().error]).toEqual([409, 'Conflict']);

    const { client, merchantId } = await approvedOwner('links@example.com');
    const bad = await client.call('POST', '/payment-links', { amount: 25.001, currency: 'USD' });
    expect([bad.statusCode, bad.json().error, bad.json().details[0].path]).toEqual([422, 'ValidationError', 'amount']);
    const noWallet = await client.call('POST', '/payment-links', {
      amount: 25,
      currency: 'USD',
      destinationAsset: 'USDT',
      network: 'base',
    });
    expect(noWallet.statusCode).toBe(422);

    const created = await client.call('POST', '/payment-links', {
      amount: 25.5,
      currency: 'eur',
      description: 'A print',
      merchantOrderId: 'o-9',
    });
    expect(created.statusCode, created.body).toBe(201);
    const link = created.json().link;
    expect(link).toMatchObject({
      status: 'active',
      amount: '25.50',
      currency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      description: 'A print',
      merchantOrderId: 'o-9',
      sessions: 0,
      completed: 0,
    });
    expect(link.url).toBe(`${ctx.config.http.publicBaseUrl}/link/${link.id}`);
    expect((await client.call('GET', '/payment-links')).json().links).toEqual([link]);

    // A customer's session of the link: it shows under the link and in the payment list filtered by link.
    const sessionId = await seedPayment(ctx.db.db, merchantId, 'completed');
    await ctx.db.db.update(checkoutSessions).set({ paymentLinkId: link.id, source: 'payment_link' }).where(eqId(sessionId));
    const detail = (await client.call('GET', `/payment-links/${link.id}`)).json();
    expect(detail.link).toMatchObject({ sessions: 1, completed: 1 });
    expect(detail.sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    expect((await client.call('GET', `/payments?link=${link.id}`)).json().payments.map((s: { id: string }) => s.id)).toEqual([sessionId]);

    await ctx.db.sql`update dashboard_users set role = 'viewer' where email = 'links@example.com'`;
    expect((await client.call('GET', `/payment-links/${link.id}`)).statusCode).toBe(200);
    for (const [url, body] of [
      ['/payment-links', { amount: 5, currency: 'USD' }],
      [`/payment-links/${link.id}/deactivate`, undefined],
    ] as const) {
      const res = await client.call('POST', url, body);
      expect([res.statusCode, res.json().error], url).toEqual([403, 'Forbidden']);
    }
    await ctx.db.sql`update dashboard_users set role = 'developer' where email = 'links@example.com'`;
    const off = await client.call('POST', `/payment-links/${link.id}/deactivate`);
    expect(off.statusCode).toBe(200);
    expect(off.json().link.status).toBe('expired');
    expect(Date.parse(off.json().link.expiresAt)).toBeLessThanOrEqual(Date.now());
    // Its run is told (no worker runs in this file: the signal in its history is what is checked;
    // the browser walk sees a run end).
    const history = await ctx.temporal.workflow.getHandle(link.id).fetchHistory();
    expect(history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'linkDeactivated')).toHaveLength(1);
    // Its page takes no new session.
    const pay = await ctx.app.inject({ method: 'POST', url: `/link/${link.id}/pay`, payload: { country: 'US' } });
    expect(pay.statusCode).toBe(409);
    expect((await client.call('POST', `/payment-links/${link.id}/deactivate`)).json().link.status).toBe('expired');

    await ctx.db.sql`update payment_links set status = 'paid' where id = ${link.id}`;
    const paid = await client.call('POST', `/payment-links/${link.id}/deactivate`);
    expect([paid.statusCode, paid.json().error]).toEqual([409, 'Conflict']);
    for (const id of ['plink_nonsense', 'x']) expect((await client.call('GET', `/payment-links/${id}`)).statusCode, id).toBe(404);
  });

  it('lists payouts and settlements with the operator’s CSV, and the home figures', async () => {
    const { client, merchantId } = await approvedOwner('money@example.com');
    const paid = await seedPayment(ctx.db.db, merchantId, 'completed');
    await seedPayment(ctx.db.db, merchantId, 'pending');
    const confirmedAt = new Date();
    await insertSettlementRows(ctx.db.db, [
      payoutRow(paid, 'merchant', { status: 'confirmed', txHash: `0x${'cd'.repeat(32)}`, confirmedAt }),
      payoutRow(paid, 'sweep', { status: 'confirmed', txHash: `0x${'ef'.repeat(32)}`, confirmedAt }),
    ]);

    const list = (await client.call('GET', '/payouts')).json().payouts;
    expect(list).toEqual([
      expect.objectContaining({
        paymentId: paid,
        status: 'confirmed',
        amount: '24.625000',
        asset: 'USDC',
        txHash: `0x${'cd'.repeat(32)}`,
        payments: [{ paymentId: paid, amount: '24.625000' }],
      }),
    ]);
    const payoutCsv = await client.call('GET', '/payouts.csv');
    expect(payoutCsv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(payoutCsv.body.split('\r\n')).toEqual([
      'payout_id,payment_id,status,asset,network,amount,to_address,tx_hash,created_at,confirmed_at,failure_reason',
      expect.stringContaining(`,${paid},confirmed,USDC,polygon,24.625000,${CHECKSUMMED},0x${'cd'.repeat(32)},`),
      '',
    ]);

    const settlements = (await client.call('GET', '/settlements')).json().settlements;
    expect(settlements).toEqual([
      expect.objectContaining({ paymentId: paid, gross: '25.000000', commission: '0.375000', net: '24.625000' }),
    ]);
    const settlementCsv = await client.call('GET', '/settlements.csv');
    const operators = settlementsCsv(await settledTransactions(ctx.db.db, { merchantId, from: new Date(0), to: new Date() }));
    expect(settlementCsv.body).toBe(operators);
    expect(settlementCsv.body).toContain(paid);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await client.call('GET', `/settlements?from=${future}`)).json().error).toBe('ValidationError');
    expect((await client.call('GET', `/settlements?to=${new Date(Date.now() - 3600_000).toISOString()}`)).json().settlements).toEqual([]);

    const home = (await client.call('GET', '/home')).json();
    expect(home.today).toEqual({ byAsset: { USDC: '25.000000' }, payments: 1 });
    expect(home.month).toEqual({ byAsset: { USDC: '25.000000' }, payments: 1 });
    expect(home.days).toHaveLength(30);
    expect(home.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), byAsset: { USDC: '25.000000' }, payments: 1 });
    expect(home.byStatus).toEqual({ completed: 1, pending: 1 });
    expect(home.openExceptions).toBe(0);
  });

  it('reads the balances with when each is paid next, as the schedule and the last payout say, and each payout with its payments', async () => {
    const { client, merchantId } = await approvedOwner('next-payout@example.com');
    const interval = ctx.config.chains.settlement.intervalSeconds;
    const read = async () => {
      const before = ctx.clock.now().getTime();
      const res = await client.call('GET', '/payout-settings');
      expect(res.statusCode, res.body).toBe(200);
      return { body: res.json(), before, after: ctx.clock.now().getTime() };
    };
    /** The answer's next payout is the read's own time: the next run pays. */
    const atNextRun = (r: { before: number; after: number }) => (iso: string | null) =>
      iso !== null && Date.parse(iso) >= r.before && Date.parse(iso) <= r.after;

    // Nothing yet: instant, the next run; a top-up address per network the service sweeps.
    const fresh = await read();
    expect(fresh.body).toMatchObject({
      schedule: 'instant',
      minimum: '0.000000',
      balances: [],
      payoutDue: true,
      payoutIntervalSeconds: interval,
    });
    expect(atNextRun(fresh)(fresh.body.nextPayoutAt)).toBe(true);
    const swept = ctx.config.chains.networks.filter((n) => n.sweeper).map((n) => n.network);
    expect(swept).toContain('polygon');
    expect(fresh.body.topUpAddresses.map((t: { network: string }) => t.network)).toEqual(swept);
    for (const t of fresh.body.topUpAddresses) expect(t.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // Two payments paid by one payout planned early this UTC day, still on its way; a third's share available.
    const today = Math.floor(ctx.clock.now().getTime() / 86_400_000) * 86_400_000;
    const seeded = await seedBalance(ctx.db.db, merchantId, { paid: 2, available: 1, payoutAt: new Date(today + 1000), onItsWay: true });
    // A payout from before settlement runs: one payment, its own payment_id, no items.
    const legacy = await seedPayment(ctx.db.db, merchantId, 'completed');
    await ctx.db.db
      .insert(payouts)
      .values(payoutRow(legacy, 'merchant', { status: 'confirmed', createdAt: new Date('2026-01-01T00:00:00Z') }));

    const withBalance = await read();
    expect(withBalance.body.balances).toEqual([
      {
        network: 'polygon',
        asset: 'USDC',
        pending: '0.000000',
        available: '24.625000',
        reserved: '0.000000',
        outgoing: '49.250000',
        nextPayoutAt: expect.any(String),
        payoutDue: true,
        payoutRequested: false,
      },
    ]);
    expect(atNextRun(withBalance)(withBalance.body.balances[0].nextPayoutAt)).toBe(true);
    expect(atNextRun(withBalance)(withBalance.body.nextPayoutAt)).toBe(true);

    const payoutList = (await client.call('GET', '/payouts')).json().payouts;
    // In the database's order of ids, which need not be JavaScript's: compared as sets.
    const byId = (x: { paymentId: string }, y: { paymentId: string }) => (x.paymentId < y.paymentId ? -1 : 1);
    expect(payoutList.map((p: { id: string; payments: { paymentId: string }[] }) => [p.id, [...p.payments].sort(byId)])).toEqual([
      [seeded.payoutId, [...seeded.paid].sort().map((paymentId) => ({ paymentId, amount: '24.625000' }))],
      [payoutRow(legacy, 'merchant', {}).id, [{ paymentId: legacy, amount: '24.625000' }]],
    ]);

    // Daily: paid today already, so the next UTC midnight; the minimum is the merchant's.
    const midnight = new Date(today + 86_400_000).toISOString();
    const daily = await client.call('POST', '/payout-settings', { schedule: 'daily', minimum: '25' });
    expect(daily.statusCode, daily.body).toBe(200);
    expect(daily.json()).toMatchObject({
      schedule: 'daily',
      minimum: '25.000000',
      nextPayoutAt: midnight,
      payoutDue: false,
      payoutRequested: false,
      balances: [{ nextPayoutAt: midnight, payoutDue: false, payoutRequested: false }],
    });
    expect((await read()).body.nextPayoutAt).toBe(midnight);

    // Weekly: paid this ISO week already, so the next Monday 00:00 UTC.
    const monday = new Date(today + (7 - ((new Date(today).getUTCDay() + 6) % 7)) * 86_400_000).toISOString();
    const weekly = await client.call('POST', '/payout-settings', { schedule: 'weekly', minimum: '25' });
    expect(weekly.json()).toMatchObject({
      nextPayoutAt: monday,
      payoutDue: false,
      balances: [{ nextPayoutAt: monday, payoutDue: false }],
    });

    // Manual: none by itself; asked for, the next run again, whatever the schedule.
    const manual = await client.call('POST', '/payout-settings', { schedule: 'manual', minimum: '0' });
    expect(manual.json()).toMatchObject({ nextPayoutAt: null, payoutDue: false, balances: [{ nextPayoutAt: null, payoutDue: false }] });
    const before = ctx.clock.now().getTime();
    const asked = await client.call('POST', '/payout-settings/request');
    expect(asked.statusCode, asked.body).toBe(200);
    const after = ctx.clock.now().getTime();
    expect(atNextRun({ before, after })(asked.json().nextPayoutAt)).toBe(true);
    expect(atNextRun({ before, after })(asked.json().balances[0].nextPayoutAt)).toBe(true);
    expect(asked.json()).toMatchObject({ payoutDue: true, payoutRequested: true, balances: [{ payoutDue: true, payoutRequested: true }] });

    // Other roles read the same, and change nothing.
    await ctx.db.sql`update dashboard_users set role = 'viewer' where email = 'next-payout@example.com'`;
    const viewed = await read();
    expect(viewed.body).toMatchObject({ schedule: 'manual', balances: [{ available: '24.625000' }] });
    const refused = await client.call('POST', '/payout-settings', { schedule: 'instant', minimum: '0' });
    expect([refused.statusCode, refused.json().error]).toEqual([403, 'Forbidden']);
  });

  it('pages payouts by cursor (none skipped or repeated, ties on time broken by id) and exports every one', async () => {
    const { client, merchantId } = await approvedOwner('payout-pages@example.com');
    // 7 payouts, several created in the same microsecond: the cursor must break ties by id.
    const ids: string[] = [];
    const at = ['2026-11-03T10:00:00.000001Z', '2026-11-03T10:00:00.000001Z', '2026-11-03T10:00:00.000001Z', '2026-11-03T09:00:00Z'];
    for (let i = 0; i < 7; i++) {
      const paid = await seedPayment(ctx.db.db, merchantId, 'completed');
      const row = payoutRow(paid, 'merchant', { status: 'confirmed', txHash: `0x${String(i).repeat(64)}`, confirmedAt: new Date() });
      await insertSettlementRows(ctx.db.db, [{ ...row, createdAt: new Date(Date.parse('2026-11-01T00:00:00Z') + i * 1000) }]);
      if (i < at.length) await ctx.db.sql`update payouts set created_at = ${at[i]!}::timestamptz where id = ${row.id}`;
      ids.push(row.id);
    }
    const expected = (
      await ctx.db.sql<{ id: string }[]>`select p.id from payouts p join payout_items i on i.payout_id = p.id
      join checkout_sessions s on s.id = i.payment_id
      where s.merchant_id = ${merchantId} and p.kind = 'merchant' order by p.created_at desc, p.id desc`
    ).map((r) => r.id);
    expect([...expected].sort()).toEqual([...ids].sort());

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await client.call('GET', `/payouts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<{ payouts: { id: string }[]; nextCursor: string | null }>();
      expect(page.payouts.length).toBeLessThanOrEqual(2);
      seen.push(...page.payouts.map((p) => p.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(expected);
    // The default page holds all 7; the CSV holds every payout, newest first.
    expect((await client.call('GET', '/payouts')).json()).toMatchObject({ nextCursor: null });
    const csvIds = (await client.call('GET', '/payouts.csv')).body
      .split('\r\n')
      .slice(1, -1)
      .map((l) => l.split(',')[0]);
    expect(csvIds).toEqual(expected);

    // A cursor it did not hand out (a payment's id in it, or junk) and a limit out of bounds: the envelope, nothing listed.
    const paymentCursor = Buffer.from(JSON.stringify(['2026-11-03T10:00:00.000001Z', 'SV_notapayout'])).toString('base64url');
    for (const [query, status, error] of [
      [`cursor=${paymentCursor}`, 400, 'BadRequest'],
      ['cursor=nope', 400, 'BadRequest'],
      ['limit=0', 422, 'ValidationError'],
      ['limit=101', 422, 'ValidationError'],
      ['other=1', 422, 'ValidationError'],
    ] as const) {
      const res = await client.call('GET', `/payouts?${query}`);
      expect([res.statusCode, res.json().ok, res.json().error], query).toEqual([status, false, error]);
    }
  });

  it('reads settlements between two dates, in the page and its CSV, and refuses a bad date in the envelope', async () => {
    const { client, merchantId } = await approvedOwner('settlement-dates@example.com');
    const days = ['2026-10-30T23:59:59Z', '2026-10-31T12:00:00Z', '2026-11-01T00:00:00Z'];
    const paid: string[] = [];
    for (const day of days) {
      const id = await seedPayment(ctx.db.db, merchantId, 'completed');
      await insertSettlementRows(ctx.db.db, [
        payoutRow(id, 'merchant', { status: 'confirmed', txHash: `0x${id.slice(-2).repeat(32)}`, confirmedAt: new Date(day) }),
      ]);
      paid.push(id);
    }
    const listed = async (query: string) =>
      ((await client.call('GET', `/settlements?${query}`)).json().settlements as { paymentId: string }[]).map((s) => s.paymentId);
    // `from` inclusive, `to` exclusive; a day is its UTC start.
    expect(await listed('from=2026-10-31&to=2026-11-01')).toEqual([paid[1]]);
    expect(await listed('from=2026-10-30T23:59:59Z')).toEqual(paid);
    expect(await listed('to=2026-10-31T00:00:00%2B00:00')).toEqual([paid[0]]);
    const csv = await client.call('GET', '/settlements.csv?from=2026-10-31&to=2026-11-01');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body).toBe(
      settlementsCsv(await settledTransactions(ctx.db.db, { merchantId, from: new Date('2026-10-31'), to: new Date('2026-11-01') })),
    );
    expect(csv.body).toContain(paid[1]);
    expect(csv.body).not.toContain(paid[0]);

    for (const path of ['/settlements', '/settlements.csv']) {
      for (const [query, field] of [
        ['from=2026-13-01', 'querystring.from'],
        ['to=yesterday', 'querystring.to'],
        ['from=2026-11-01&to=2026-10-31', 'querystring.from'],
        ['from=2026-11-01&to=2026-11-01', 'querystring.from'],
        ['since=2026-11-01', 'querystring.since'],
      ] as const) {
        const res = await client.call('GET', `${path}?${query}`);
        expect(res.headers['content-type'], `${path}?${query}`).toMatch(/^application\/json/);
        const body = res.json();
        expect([res.statusCode, body.ok, body.error], `${path}?${query}`).toEqual([422, false, 'ValidationError']);
        expect(body.details?.[0]?.path, `${path}?${query}`).toBe(field);
      }
    }
  });

  it('cross-tenant: another merchant’s link, wallet, payouts and settlements never show or change', async () => {
    const a = await approvedOwner('money-a@example.com', 'Shop A');
    const b = await approvedOwner('money-b@example.com', 'Shop B');
    const linkB = (await b.client.call('POST', '/payment-links', { amount: 10, currency: 'USD' })).json().link;
    const paidB = await seedPayment(ctx.db.db, b.merchantId, 'completed');
    await insertSettlementRows(ctx.db.db, [
      payoutRow(paidB, 'merchant', { status: 'confirmed', txHash: `0x${'aa'.repeat(32)}`, confirmedAt: new Date() }),
    ]);

    for (const [method, url] of [
      ['GET', `/payment-links/${linkB.id}`],
      ['POST', `/payment-links/${linkB.id}/deactivate`],
    ] as const) {
      const res = await a.client.call(method, url);
      expect([res.statusCode, res.json().error], url).toEqual([404, 'NotFound']);
    }
    for (const url of [
      '/payment-links',
      '/payouts',
      '/payouts.csv',
      '/settlements',
      '/settlements.csv',
      '/home',
      `/payments?link=${linkB.id}`,
    ]) {
      const res = await a.client.call('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain(linkB.id);
      expect(res.body, url).not.toContain(paidB);
    }
    expect((await a.client.call('GET', '/home')).json().today.payments).toBe(0);
    // A's wallet change is A's: B's wallet and B's mailbox stay as they were.
    const before = mailbox.messages().filter((m) => m.to.includes('money-b@example.com')).length;
    expect(
      (await a.client.call('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: '0x' + '2'.repeat(40) })).statusCode,
    ).toBe(200);
    await mailbox.waitFor('money-a@example.com', /Settlement wallet changed/);
    expect((await b.client.call('GET', '/wallets')).json().wallets).toEqual([expect.objectContaining({ address: CHECKSUMMED })]);
    expect(mailbox.messages().filter((m) => m.to.includes('money-b@example.com')).length).toBe(before);
    expect((await b.client.call('GET', `/payment-links/${linkB.id}`)).json().link.status).toBe('active');
  });
});

function eqId(id: string) {
  return sql`${checkoutSessions.id} = ${id}`;
}

/** Settlement rows as a run writes them: each names its own id as payment_id, its payment in payout_items. */
async function insertSettlementRows(db: Database, rows: (typeof payouts.$inferInsert)[]) {
  await db.insert(payouts).values(rows.map((r) => ({ ...r, paymentId: r.id })));
  await db.insert(payoutItems).values(rows.map((r) => ({ payoutId: r.id, paymentId: r.paymentId, amount: r.amount })));
}

function payoutRow(
  paymentId: string,
  kind: 'merchant' | 'sweep',
  extra: Partial<typeof payouts.$inferInsert>,
): typeof payouts.$inferInsert {
  return {
    id: `po_${kind.slice(0, 3)}${paymentId.slice(3, 24)}`,
    paymentId,
    kind,
    network: 'polygon',
    asset: 'USDC',
    fromAddress: '0x0000000000000000000000000000000000000009',
    toAddress: CHECKSUMMED,
    amount: kind === 'merchant' ? '24625000' : '375000',
    ...extra,
  };
}
