import { describe, expect, it } from 'vitest';
import { checkoutSessions } from '../../src/db/schema';
import { encodeListCursor } from '../../src/domain/payment-list';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// GET /api/v1/checkout/sessions: the calling merchant's sessions, newest first, paged by cursor and
// filtered, in the create answer's shape; refusals in the v1 envelope naming the parameter; never
// another merchant's session, whatever the filter or cursor.
const ctx = useTestApp();

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
let seq = 0;

interface SeedRow {
  minute?: number;
  status?: 'pending' | 'processing' | 'completed' | 'failed' | 'expired' | 'canceled';
  orderId?: string | null;
  merchantOrderId?: string | null;
}

/** Sessions written straight to the table, so their creation times are the test's to choose. */
async function seed(merchantId: string, rows: SeedRow[]): Promise<string[]> {
  const ids = rows.map(() => `SV_list${String(++seq).padStart(5, '0')}`);
  await ctx.db.db.insert(checkoutSessions).values(
    rows.map((r, i) => ({
      id: ids[i]!,
      merchantId,
      status: r.status ?? 'pending',
      amountMinor: 2500n,
      currency: 'USD',
      countryCode: 'US',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      commissionBps: 100,
      provider: 'sandbox',
      railType: 'fiat_to_crypto',
      orderId: r.orderId ?? null,
      merchantOrderId: r.merchantOrderId ?? null,
      expiresAt: new Date(BASE + 86_400_000),
      createdAt: new Date(BASE + (r.minute ?? 0) * 60_000),
    })),
  );
  return ids;
}

const list = (apiKey: string | undefined, query = '') =>
  ctx.app.inject({
    method: 'GET',
    url: `/api/v1/checkout/sessions${query ? `?${query}` : ''}`,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  });

/** Every id the list answers for `query`, page by page; checks each page's paging fields on the way. */
async function walk(apiKey: string, query: string, limit: number, between?: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    expect(pages, 'a page walk ends').toBeLessThan(200);
    const q = [query, `limit=${limit}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&');
    const res = await list(apiKey, q);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ checkoutSessions: { id: string }[]; hasMore: boolean; nextCursor: string | null }>();
    expect(body.checkoutSessions.length).toBeLessThanOrEqual(limit);
    expect(body.hasMore).toBe(body.nextCursor !== null);
    if (body.hasMore) expect(body.checkoutSessions).toHaveLength(limit);
    seen.push(...body.checkoutSessions.map((s) => s.id));
    if (!body.nextCursor) return seen;
    cursor = body.nextCursor;
    await between?.();
  }
}

/** The oracle: the merchant's sessions in the list's order, read in one plain query. */
async function newestFirst(merchantId: string, where = 'true'): Promise<string[]> {
  const rows = await ctx.db.sql.unsafe(
    `select id from checkout_sessions where merchant_id = $1 and ${where} order by created_at desc, id desc`,
    [merchantId],
  );
  return rows.map((r) => r.id as string);
}

function expectRefused(res: Awaited<ReturnType<typeof list>>, status: number, error: string, path?: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ ok: false, error, requestId: res.headers['x-request-id'] });
  expect(typeof body.message).toBe('string');
  if (path) expect(body.details.map((d: { path: string }) => d.path)).toContain(path);
}

describe('listing checkout sessions: happy', () => {
  it('answers each session in the create answer’s shape, newest first', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const created = [];
    for (const orderId of ['order-a', 'order-b']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: { authorization: `Bearer ${m.apiKey}` },
        payload: { amount: 25, currency: 'USD', countryCode: 'US', orderId, locale: 'de' },
      });
      expect(res.statusCode, res.body).toBe(201);
      created.push(res.json().checkoutSession);
    }
    const res = await list(m.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, checkoutSessions: [created[1], created[0]], hasMore: false, nextCursor: null });
  });

  it('pages through every session exactly once, ties on creation time included, whatever is created meanwhile, and changes nothing', async () => {
    const m = await createApprovedMerchant(ctx.app);
    // Few distinct minutes, so many sessions share a creation time and the id breaks the tie.
    await seed(
      m.id,
      Array.from({ length: 23 }, (_, i) => ({ minute: i % 4 })),
    );
    // Times apart by microseconds only: a cursor cut to the millisecond would skip or repeat them.
    const micro = await seed(m.id, [{ minute: 10 }, { minute: 10 }, { minute: 10 }]);
    for (const [i, id] of micro.entries()) {
      await ctx.db.sql`update checkout_sessions set created_at = created_at + make_interval(secs => ${(i + 1) / 1e6}) where id = ${id}`;
    }
    const expected = await newestFirst(m.id);
    expect(expected).toHaveLength(26);
    const before = await ctx.db.sql`select id, status, updated_at from checkout_sessions order by id`;

    for (const limit of [1, 5, 26, 100]) expect(await walk(m.apiKey, '', limit)).toEqual(expected);
    // A session created while the merchant pages is newer than the first page: it shifts nothing.
    const late: string[] = [];
    expect(await walk(m.apiKey, '', 4, async () => void late.push(...(await seed(m.id, [{ minute: 60 }]))))).toEqual(expected);
    expect(late.length).toBeGreaterThan(0);

    const res = await list(m.apiKey);
    expect(res.json().checkoutSessions).toHaveLength(20);
    expect(res.json().hasMore).toBe(true);
    await ctx.db.sql`delete from checkout_sessions where id = any(${late})`;
    expect(await ctx.db.sql`select id, status, updated_at from checkout_sessions order by id`).toEqual(before);
  });

  it('filters by status (one or several), order reference and creation range, and combines them', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const [p0, c1, f2, c3, e4, p5] = await seed(m.id, [
      { minute: 0, status: 'pending', orderId: 'order-7' },
      { minute: 1, status: 'completed', merchantOrderId: 'order-7' },
      { minute: 2, status: 'failed' },
      { minute: 3, status: 'completed', orderId: 'order-8' },
      { minute: 4, status: 'expired', orderId: 'order-7' },
      { minute: 5, status: 'pending' },
    ]);
    const at = (minute: number) => encodeURIComponent(new Date(BASE + minute * 60_000).toISOString());
    const cases: [string, string[]][] = [
      ['status=completed', [c3!, c1!]],
      ['status=pending&status=failed', [p5!, f2!, p0!]],
      ['orderId=order-7', [e4!, c1!, p0!]],
      ['orderId=order-', []],
      [`createdFrom=${at(1)}`, [p5!, e4!, c3!, f2!, c1!]],
      [`createdTo=${at(2)}`, [c1!, p0!]],
      [`createdFrom=${at(1)}&createdTo=${at(4)}`, [c3!, f2!, c1!]],
      // An offset other than Z names the same instant.
      [`createdFrom=${encodeURIComponent('2026-11-01T01:03:00+01:00')}`, [p5!, e4!, c3!]],
      [`status=completed&orderId=order-7&createdFrom=${at(1)}`, [c1!]],
      [`status=canceled`, []],
    ];
    for (const [query, ids] of cases) {
      expect(await walk(m.apiKey, query, 2), query).toEqual(ids);
      const page = (await list(m.apiKey, query)).json();
      expect(
        page.checkoutSessions.map((s: { id: string }) => s.id),
        query,
      ).toEqual(ids);
    }
    // orderId in the answer is the merchant's orderId, or merchantOrderId without one.
    const [found] = (await list(m.apiKey, 'status=completed&orderId=order-7')).json().checkoutSessions;
    expect(found).toMatchObject({ id: c1, status: 'completed', orderId: 'order-7', amount: '25.00', currency: 'USD' });
  });
});

describe('listing checkout sessions: refusals', () => {
  it('refuses a page size, status, date or unknown parameter it cannot use, naming it, in the envelope', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await seed(m.id, [{}]);
    const refusals: [string, string][] = [
      ['limit=0', 'querystring.limit'],
      ['limit=101', 'querystring.limit'],
      ['limit=ten', 'querystring.limit'],
      ['limit=2.5', 'querystring.limit'],
      ['status=paid', 'querystring.status'],
      ['status=pending&status=paid', 'querystring.status'],
      ['createdFrom=yesterday', 'querystring.createdFrom'],
      // A time without Z or an offset is no instant at all.
      ['createdFrom=2026-11-01T00:00:00', 'querystring.createdFrom'],
      ['createdTo=2026-13-01T00:00:00Z', 'querystring.createdTo'],
      ['createdTo=2026-02-30T00:00:00Z', 'querystring.createdTo'],
      ['createdFrom=0000-06-01T00:00:00Z', 'querystring.createdFrom'],
      ['createdFrom=2026-11-02T00:00:00Z&createdTo=2026-11-01T00:00:00Z', 'querystring.createdFrom'],
      ['createdFrom=2026-11-01T00:00:00Z&createdTo=2026-11-01T00:00:00Z', 'querystring.createdFrom'],
      [`orderId=${'x'.repeat(201)}`, 'querystring.orderId'],
      ['startingAfter=SV_x', 'querystring.startingAfter'],
    ];
    for (const [query, path] of refusals) expectRefused(await list(m.apiKey, query), 422, 'ValidationError', path);
  });

  it('refuses a cursor it did not hand out', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const [id] = await seed(m.id, [{}]);
    const forged = [
      'not-a-cursor',
      Buffer.from('{"at":1}').toString('base64url'),
      encodeListCursor({ at: '2026-11-01T00:00:00.000000Z', id: 'po_notASession' }),
      encodeListCursor({ at: 'yesterday', id: id! }),
      // The merchant's own session with a time edited in: one the calendar has not, and another.
      encodeListCursor({ at: '2026-02-30T00:00:00.000000Z', id: id! }),
      encodeListCursor({ at: '2026-11-01T00:00:00.000001Z', id: id! }),
      // Well formed, naming a session that does not exist.
      encodeListCursor({ at: '2026-11-01T00:00:00.000000Z', id: 'SV_doesNotExist' }),
    ];
    // The genuine position of that session is taken.
    expect((await list(m.apiKey, `cursor=${encodeListCursor({ at: '2026-11-01T00:00:00.000000Z', id: id! })}`)).statusCode).toBe(200);
    for (const cursor of forged) {
      expectRefused(await list(m.apiKey, `cursor=${encodeURIComponent(cursor)}`), 422, 'ValidationError', 'querystring.cursor');
    }
  });
});

describe('listing checkout sessions: security', () => {
  it('never shows another merchant’s sessions, whatever the filter, and refuses its cursors as unknown ones', async () => {
    const mine = await createApprovedMerchant(ctx.app);
    const theirs = await createApprovedMerchant(ctx.app);
    const [m1, , m3] = await seed(mine.id, [{ minute: 1, orderId: 'shared-order' }, { minute: 2 }, { minute: 3, status: 'completed' }]);
    await seed(theirs.id, [{ minute: 1, orderId: 'shared-order' }, { minute: 2 }, { minute: 4, status: 'completed' }]);
    const cases: [string, string[]][] = [
      ['', await newestFirst(mine.id)],
      ['orderId=shared-order', [m1!]],
      ['status=completed', [m3!]],
      ['createdFrom=2026-11-01T00:03:00Z', [m3!]],
    ];
    for (const [query, ids] of cases) expect(await walk(mine.apiKey, query, 1), query).toEqual(ids);

    // Their cursor, handed out to them, is refused to me exactly as a cursor naming no session is.
    const theirPage = (await list(theirs.apiKey, 'limit=1')).json();
    expect(theirPage.nextCursor).toEqual(expect.any(String));
    const stolen = await list(mine.apiKey, `cursor=${encodeURIComponent(theirPage.nextCursor)}`);
    expectRefused(stolen, 422, 'ValidationError', 'querystring.cursor');
    const unknown = await list(mine.apiKey, `cursor=${encodeListCursor({ at: '2026-11-01T00:00:00.000000Z', id: 'SV_doesNotExist' })}`);
    const { requestId: _a, ...stolenBody } = stolen.json();
    const { requestId: _b, ...unknownBody } = unknown.json();
    expect(stolenBody).toEqual(unknownBody);
  });

  it('needs a key (401) with the transactions:read scope (403 InsufficientScope)', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await seed(m.id, [{}]);
    expectRefused(await list(undefined), 401, 'Unauthorized');
    expectRefused(await list('svc_live_notAKeyOfAnyone0000000000000000'), 401, 'Unauthorized');
    const creator = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['checkout_sessions:create', 'payment_links:create'] },
    });
    expect(creator.statusCode, creator.body).toBe(201);
    const refused = await list(creator.json().apiKey as string);
    expectRefused(refused, 403, 'InsufficientScope');
    expect(refused.json().message).toContain('transactions:read');

    const reader = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['transactions:read'] },
    });
    expect((await list(reader.json().apiKey as string)).statusCode).toBe(200);
  });
});
