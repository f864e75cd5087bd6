import { describe, expect, it } from 'vitest';
import { checkoutSessions, paymentExceptions } from '../../src/db/schema';
import { newExceptionId } from '../../src/domain/ids';
import { DashboardClient, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// Issue 29 item 1 over HTTP: the dashboard's payment list and its CSV. The use case's own property
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
