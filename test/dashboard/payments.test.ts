import { describe, expect, it } from 'vitest';
import { chainCredits, checkoutSessions, paymentExceptions } from '../../src/db/schema';
import { newExceptionId } from '../../src/domain/ids';
import { DashboardClient, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// The dashboard's payment list and its CSV. The use case's own property
// test covers the filter semantics; here: the query string, the envelope, the cursor, the CSV's
// escaping, every role reading, and nothing of another merchant's.
describe('dashboard payments', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);
  const BASE = Date.parse('2026-10-01T00:00:00.000Z');

  async function seed(merchantId: string, n: number, extra: (i: number) => Partial<typeof checkoutSessions.$inferInsert> = () => ({})) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `SV_${merchantId.slice(-6)}${String(i).padStart(18, '0')}`;
      await ctx.db.db.insert(checkoutSessions).values({
        id,
        merchantId,
        status: 'pending',
        amountMinor: BigInt(1000 + i),
        currency: 'USD',
        countryCode: 'US',
        destinationAsset: 'USDC',
        network: 'polygon',
        walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
        commissionBps: 100,
        provider: 'sandbox',
        railType: 'fiat_to_crypto',
        expiresAt: new Date(BASE + 86_400_000),
        createdAt: new Date(BASE + i * 60_000),
        ...extra(i),
      });
      ids.push(id);
    }
    return ids;
  }

  it('answers 401 in the envelope without a session', async () => {
    const anonymous = new DashboardClient(ctx.app);
    for (const url of ['/payments', '/payments.csv']) {
      const res = await anonymous.call('GET', url);
      expect(res.statusCode, url).toBe(401);
      expect(res.json()).toMatchObject({ ok: false, error: 'Unauthorized' });
    }
  });

  it('pages by cursor, filters, searches, refuses a bad filter, and exports exactly the filtered rows', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'list@example.com');
    const ids = await seed(merchantId, 7, (i) => ({
      status: i % 2 ? 'completed' : 'pending',
      orderId: i === 3 ? '=HYPERLINK("http://x","y"),z' : `order-${i}`,
      customerEmail: i === 5 ? 'Ann@Shop.test' : null,
    }));
    await ctx.db.db.insert(paymentExceptions).values({
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId: ids[2]!,
      kind: 'overpaid',
      amountMicro: 1_000_000n,
    });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await client.call('GET', `/payments?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      seen.push(...res.json().payments.map((p: { id: string }) => p.id));
      cursor = res.json().nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const completed = (await client.call('GET', '/payments?status=completed')).json().payments;
    expect(completed.map((p: { id: string }) => p.id)).toEqual([ids[5], ids[3], ids[1]]);
    expect(completed[0]).toMatchObject({ amount: '10.05', currency: 'USD', status: 'completed', customerEmail: 'Ann@Shop.test' });
    const ranged = (await client.call('GET', '/payments?currency=usd&minAmount=10.02&maxAmount=10.04&status=pending,completed')).json();
    expect(ranged.payments.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3], ids[2]]);
    const dated = (
      await client.call('GET', `/payments?from=${new Date(BASE + 60_000).toISOString()}&to=${new Date(BASE + 180_000).toISOString()}`)
    ).json();
    expect(dated.payments.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    expect((await client.call('GET', '/payments?openExceptions=true')).json().payments).toEqual([
      expect.objectContaining({ id: ids[2], openExceptions: 1 }),
    ]);
    for (const [q, expected] of [
      ['ann%40shop.test', ids[5]],
      ['order-6', ids[6]],
      [ids[0], ids[0]],
    ] as const) {
      expect(
        (await client.call('GET', `/payments?q=${q}`)).json().payments.map((p: { id: string }) => p.id),
        q,
      ).toEqual([expected]);
    }
    expect((await client.call('GET', '/payments?rail=crypto_transfer')).json().payments).toEqual([]);
    expect((await client.call('GET', '/payments?network=base')).json().payments).toEqual([]);

    for (const [url, status, code] of [
      ['/payments?minAmount=5', 422, 'ValidationError'],
      ['/payments?currency=USD&minAmount=1.001', 422, 'ValidationError'],
      ['/payments?currency=XYZ', 422, 'ValidationError'],
      ['/payments?status=paid', 422, 'ValidationError'],
      ['/payments?cursor=nonsense', 400, 'BadRequest'],
      ['/payments?from=2026-10-02&to=2026-10-01', 400, 'BadRequest'],
      ['/payments.csv?currency=USD&minAmount=abc', 422, 'ValidationError'],
    ] as const) {
      const res = await client.call('GET', url);
      expect([res.statusCode, res.json().error], url).toEqual([status, code]);
      expect(res.json().ok).toBe(false);
    }

    const csv = await client.call('GET', '/payments.csv?status=completed');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toMatch(/^payment_id,created_at,status,amount,/);
    expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual([ids[5], ids[3], ids[1]]);
    expect(lines.at(-1)).toBe('');
    // A formula is defused and a comma or a quote inside a cell is quoted (RFC 4180).
    expect(csv.body).toContain(`"'=HYPERLINK(""http://x"",""y""),z"`);
  });

  it('says how each payment was paid, never naming the provider for a wallet, and what arrived of a partly paid one', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'labels@example.com');
    const chain = {
      verification: 'chain' as const,
      depositAddress: '0x00000000000000000000000000000000000000d1',
      expectedGrossMicro: 25_000_000n,
    };
    // 0: a wallet payment that completed; 1: open, 10 of 25 USDC arrived from a wallet; 2: Pay pressed, nothing arrived;
    // 3: open, nothing arrived, nothing chosen; 4: partly paid once, then expired (nothing remains to show).
    const ids = await seed(
      merchantId,
      5,
      (i) =>
        [
          { status: 'completed' as const, railType: 'crypto_transfer', completedAt: new Date(BASE), ...chain },
          { ...chain },
          { providerPaymentId: 'sbx_pay_1', ...chain },
          {},
          { status: 'expired' as const, ...chain },
        ][i]!,
    );
    for (const [i, amountMicro, state] of [
      [1, 10_000_000n, 'credited'],
      [1, 1_000_000n, 'wrong_asset'],
      [4, 10_000_000n, 'credited'],
    ] as const) {
      await ctx.db.db.insert(chainCredits).values({
        network: 'polygon',
        transactionHash: `0x${String(i).repeat(2)}${String(amountMicro).padStart(62, '0')}`,
        logIndex: 0,
        paymentId: ids[i]!,
        asset: state === 'credited' ? 'USDC' : 'USDT',
        token: '0x0000000000000000000000000000000000000001',
        fromAddress: '0x0000000000000000000000000000000000000002',
        toAddress: chain.depositAddress,
        amountMicro,
        blockNumber: 1n,
        blockHash: `0x${'0'.repeat(64)}`,
        state,
      });
    }
    const list: { id: string; partlyPaid: unknown }[] = (await client.call('GET', '/payments')).json().payments;
    const rows = new Map(list.map((p) => [p.id, p]));
    expect(rows.get(ids[0]!)).toMatchObject({ railType: 'crypto_transfer', paidWith: 'wallet', provider: null, partlyPaid: null });
    expect(rows.get(ids[1]!)).toMatchObject({
      paidWith: 'wallet',
      provider: null,
      partlyPaid: { arrived: '10.000000', expected: '25.000000', remaining: '15.000000' },
    });
    expect(rows.get(ids[2]!)).toMatchObject({ paidWith: 'provider', provider: 'sandbox', partlyPaid: null });
    expect(rows.get(ids[3]!)).toMatchObject({ paidWith: 'none', provider: null, partlyPaid: null });
    expect(rows.get(ids[4]!)).toMatchObject({ partlyPaid: null });

    const detail = (await client.call('GET', `/payments/${ids[1]}`)).json().payment;
    expect(detail).toMatchObject({ paidWith: 'wallet', provider: null, partlyPaid: rows.get(ids[1]!)!.partlyPaid });
    expect((await client.call('GET', `/payments/${ids[0]}`)).json().payment).toMatchObject({ paidWith: 'wallet', provider: null });

    const [header, ...lines] = (await client.call('GET', '/payments.csv')).body.split('\r\n');
    const columns = header!.split(',');
    expect(columns.at(-1)).toBe('paid_with');
    const cell = (id: string, column: string) => lines.find((l) => l.startsWith(`${id},`))!.split(',')[columns.indexOf(column)];
    expect([cell(ids[0]!, 'provider'), cell(ids[0]!, 'paid_with')]).toEqual(['', "From the customer's wallet"]);
    expect([cell(ids[1]!, 'provider'), cell(ids[1]!, 'paid_with')]).toEqual(['', "From the customer's wallet"]);
    expect([cell(ids[2]!, 'provider'), cell(ids[2]!, 'paid_with')]).toEqual(['sandbox', 'Through sandbox']);
    expect(cell(ids[3]!, 'paid_with')).toBe('Not paid');
  });

  it('lets every role read, and never shows another merchant’s payments', async () => {
    const a = await signedUpOwner(ctx.app, mailbox, 'list-a@example.com', 'Shop A');
    const b = await signedUpOwner(ctx.app, mailbox, 'list-b@example.com', 'Shop B');
    const [mineA] = await seed(a.merchantId, 1, () => ({ orderId: 'shared-order', customerEmail: 'same@shop.test' }));
    const [theirs] = await seed(b.merchantId, 1, () => ({ orderId: 'shared-order', customerEmail: 'same@shop.test' }));
    for (const role of ['viewer', 'developer', 'admin'] as const) {
      await ctx.db.sql`update dashboard_users set role = ${role} where email = 'list-a@example.com'`;
      for (const url of ['/payments', '/payments?q=shared-order', '/payments?q=same%40shop.test', `/payments?q=${theirs}`]) {
        const res = await a.client.call('GET', url);
        expect(res.statusCode, `${role} ${url}`).toBe(200);
        expect(res.body, `${role} ${url}`).not.toContain(theirs);
      }
      expect((await a.client.call('GET', '/payments')).json().payments.map((p: { id: string }) => p.id)).toEqual([mineA]);
      const csv = await a.client.call('GET', '/payments.csv');
      expect(csv.statusCode).toBe(200);
      expect(csv.body).toContain(mineA);
      expect(csv.body).not.toContain(theirs);
    }
  });
});
