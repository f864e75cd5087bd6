import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createDb } from '../../src/db/client';
import { chainCredits, checkoutSessions, paymentExceptions, payouts } from '../../src/db/schema';
import { newExceptionId } from '../../src/domain/ids';
import { paymentSearch, type PaymentListFilter } from '../../src/domain/payment-list';
import { merchantPayments, PAYMENT_EXPORT_COLUMNS } from '../../src/payments/merchant-payments';
import { createApprovedMerchant, useTestApp } from '../support/harness';

// A merchant's payment list. Random payments of two merchants and random filters
// against a model written in plain code: every page walk returns exactly the model's rows, in order,
// each once; the CSV holds exactly the same rows; the other merchant's rows never appear.
const ctx = useTestApp();

const STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const;
const EMAILS = ['Ann@Shop.test', 'bob@shop.test'];
const ORDERS = ['order-1', 'order-2', '=HYPERLINK("x")'];
const HASHES = ['0x' + 'a'.repeat(64), '0x' + 'b'.repeat(64)];
const BASE = Date.parse('2026-11-01T00:00:00.000Z');

interface Seed {
  mine: boolean;
  status: (typeof STATUSES)[number];
  minute: number;
  amountMinor: number;
  currency: 'USD' | 'EUR';
  asset: 'USDC' | 'USDT';
  network: 'polygon' | 'base';
  rail: 'fiat_to_crypto' | 'crypto_transfer';
  email: string | null;
  orderId: string | null;
  creditHash: string | null;
  openException: boolean;
}

const seedArb: fc.Arbitrary<Seed> = fc.record({
  mine: fc.boolean(),
  status: fc.constantFrom(...STATUSES),
  // Few distinct minutes: many rows share a creation time, so the id must break ties.
  minute: fc.integer({ min: 0, max: 5 }),
  amountMinor: fc.integer({ min: 1, max: 10_000 }),
  currency: fc.constantFrom('USD' as const, 'EUR' as const),
  asset: fc.constantFrom('USDC' as const, 'USDT' as const),
  network: fc.constantFrom('polygon' as const, 'base' as const),
  rail: fc.constantFrom('fiat_to_crypto' as const, 'crypto_transfer' as const),
  email: fc.option(fc.constantFrom(...EMAILS)),
  orderId: fc.option(fc.constantFrom(...ORDERS)),
  creditHash: fc.option(fc.constantFrom(...HASHES)),
  openException: fc.boolean(),
});

const filterArb: fc.Arbitrary<PaymentListFilter> = fc.record(
  {
    statuses: fc.subarray([...STATUSES], { minLength: 1 }),
    from: fc.integer({ min: 0, max: 3 }).map((m) => new Date(BASE + m * 60_000)),
    currency: fc.constantFrom('USD', 'EUR'),
    minAmountMinor: fc.integer({ min: 1, max: 5_000 }).map(BigInt),
    asset: fc.constantFrom('USDC', 'USDT'),
    network: fc.constantFrom('polygon', 'base'),
    rail: fc.constantFrom('fiat_to_crypto', 'crypto_transfer'),
    openExceptions: fc.constant(true),
    search: fc.constantFrom(...EMAILS.map((e) => e.toUpperCase()), ...ORDERS, ...HASHES).map((q) => paymentSearch(q)!),
  },
  { requiredKeys: [] },
);

interface Row extends Seed {
  id: string;
}

function matches(r: Row, f: PaymentListFilter): boolean {
  const at = BASE + r.minute * 60_000;
  const s = f.search;
  return (
    (!f.statuses || f.statuses.includes(r.status)) &&
    (!f.from || at >= f.from.getTime()) &&
    (!f.to || at < f.to.getTime()) &&
    (!f.currency || r.currency === f.currency) &&
    (f.minAmountMinor === undefined || BigInt(r.amountMinor) >= f.minAmountMinor) &&
    (f.maxAmountMinor === undefined || BigInt(r.amountMinor) <= f.maxAmountMinor) &&
    (!f.asset || r.asset === f.asset) &&
    (!f.network || r.network === f.network) &&
    (!f.rail || r.rail === f.rail) &&
    (!f.openExceptions || r.openException) &&
    (!s ||
      (s.kind === 'email' && r.email?.toLowerCase() === s.email) ||
      (s.kind === 'order' && r.orderId === s.orderId) ||
      (s.kind === 'transaction' && r.creditHash === s.hash) ||
      (s.kind === 'payment' && r.id === s.id))
  );
}

const newest = (a: Row, b: Row) => b.minute - a.minute || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe("a merchant's payment list", () => {
  it('pages, filters, searches and exports exactly the rows a plain model picks, and only the merchant’s own', async () => {
    const mine = await createApprovedMerchant(ctx.app);
    const theirs = await createApprovedMerchant(ctx.app);
    const service = ctx.app.payments.merchantPayments;
    let run = 0;

    await fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { minLength: 0, maxLength: 40 }),
        filterArb,
        fc.integer({ min: 1, max: 7 }),
        async (seeds, filter, limit) => {
          run++;
          const rows: Row[] = seeds.map((seed, i) => ({ ...seed, id: `SV_list${run}x${String(i).padStart(3, '0')}` }));
          await ctx.db.db.transaction(async (tx) => {
            for (const r of rows) {
              await tx.insert(checkoutSessions).values({
                id: r.id,
                merchantId: r.mine ? mine.id : theirs.id,
                status: r.status,
                amountMinor: BigInt(r.amountMinor),
                currency: r.currency,
                countryCode: 'US',
                destinationAsset: r.asset,
                network: r.network,
                walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
                commissionBps: 100,
                provider: 'sandbox',
                railType: r.rail,
                customerEmail: r.email,
                orderId: r.orderId,
                expiresAt: new Date(BASE + 86_400_000),
                createdAt: new Date(BASE + r.minute * 60_000),
              });
              if (r.creditHash) {
                await tx.insert(chainCredits).values({
                  network: r.network,
                  transactionHash: r.creditHash,
                  logIndex: Number(r.id.slice(-3)) + run * 1000,
                  paymentId: r.id,
                  asset: r.asset,
                  token: '0x0000000000000000000000000000000000000001',
                  fromAddress: '0x0000000000000000000000000000000000000002',
                  toAddress: '0x0000000000000000000000000000000000000003',
                  amountMicro: 1n,
                  blockNumber: 1n,
                  blockHash: '0x' + 'c'.repeat(64),
                });
              }
              await tx.insert(paymentExceptions).values({
                id: newExceptionId(),
                paymentKind: 'checkout_session',
                paymentId: r.id,
                kind: 'overpaid',
                amountMicro: 1n,
                status: r.openException ? 'open' : 'accepted',
              });
            }
          });
          try {
            const expected = rows.filter((r) => r.mine && matches(r, filter)).sort(newest);

            const seen: string[] = [];
            let cursor: string | undefined;
            for (let pages = 0; ; pages++) {
              expect(pages, 'a page walk ends').toBeLessThanOrEqual(expected.length + 1);
              const page = await service.list(mine.id, filter, { cursor, limit });
              expect(page.items.length).toBeLessThanOrEqual(limit);
              seen.push(...page.items.map((i) => i.id));
              for (const item of page.items) expect(item.openExceptions).toBe(rows.find((r) => r.id === item.id)!.openException ? 1 : 0);
              if (!page.nextCursor) break;
              cursor = page.nextCursor;
            }
            expect(seen).toEqual(expected.map((r) => r.id));

            let csv = '';
            for await (const chunk of service.exportCsv(mine.id, filter)) csv += chunk;
            const lines = csv.split('\r\n');
            expect(lines[0]).toBe(PAYMENT_EXPORT_COLUMNS.join(','));
            expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual(expected.map((r) => r.id));
          } finally {
            const ids = rows.map((r) => r.id);
            if (ids.length) {
              await ctx.db.sql`delete from payment_exceptions where payment_id = any(${ids})`;
              await ctx.db.sql`delete from chain_credits where payment_id = any(${ids})`;
              await ctx.db.sql`delete from checkout_sessions where id = any(${ids})`;
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('defuses a formula in an exported order id and refuses a cursor it did not hand out', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await ctx.db.db.insert(checkoutSessions).values({
      id: 'SV_listFormula',
      merchantId: m.id,
      amountMinor: 1250n,
      currency: 'USD',
      countryCode: 'US',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      commissionBps: 100,
      provider: 'sandbox',
      railType: 'fiat_to_crypto',
      orderId: '=HYPERLINK("x")',
      expiresAt: new Date(BASE + 86_400_000),
    });
    let csv = '';
    for await (const chunk of ctx.app.payments.merchantPayments.exportCsv(m.id, {})) csv += chunk;
    // Never paid: no provider took part, and the last column says so.
    expect(csv.split('\r\n')[1]).toContain(`,12.50,USD,USDC,polygon,fiat_to_crypto,,api,"'=HYPERLINK(""x"")",,,,0,Not paid`);

    for (const bad of ['nope', Buffer.from('["2026-01-01T00:00:00.000Z","not-an-id"]').toString('base64url')]) {
      await expect(ctx.app.payments.merchantPayments.list(m.id, {}, { cursor: bad })).rejects.toMatchObject({ code: 'BadRequest' });
    }
    await expect(ctx.app.payments.merchantPayments.list(m.id, { from: new Date(BASE), to: new Date(BASE) })).rejects.toMatchObject({
      code: 'BadRequest',
    });
  });
  it('pages through rows created within one millisecond (the cursor keeps microseconds)', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const times = [
      '2026-11-02T00:00:00.123900Z',
      '2026-11-02T00:00:00.123456Z',
      '2026-11-02T00:00:00.123200Z',
      '2026-11-02T00:00:00.123000Z',
    ];
    for (const [i, at] of times.entries()) {
      await ctx.db
        .sql`insert into checkout_sessions (id, merchant_id, status, amount_minor, currency, country_code, destination_asset, network,
          wallet_address, commission_bps, provider, rail_type, expires_at, created_at)
        values (${`SV_micro${i}`}, ${m.id}, 'pending', 100, 'USD', 'US', 'USDC', 'polygon', '0x52908400098527886E0F7030069857D2E4169EE7', 100,
          'sandbox', 'fiat_to_crypto', now() + interval '1 day', ${at}::timestamptz)`;
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ctx.app.payments.merchantPayments.list(m.id, {}, { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['SV_micro0', 'SV_micro1', 'SV_micro2', 'SV_micro3']);
  });

  it("plans a filtered page for its values, even on a connection that would keep a statement's generic plan", async () => {
    // The bench's filtered page took 30 ms instead of 4 when Postgres kept the prepared statement's
    // generic plan (db/queries/merchant-payments.ts). Here the connection forces generic plans:
    // the unfiltered page gets one, the filtered page is planned for its own values every time.
    const m = await createApprovedMerchant(ctx.app);
    const handle = createDb(ctx.config.databaseUrl, { max: 1 });
    try {
      await handle.db.execute(sql`set plan_cache_mode = force_generic_plan`);
      const service = merchantPayments({ db: handle.db });
      const filter: PaymentListFilter = { statuses: ['completed', 'failed'], currency: 'USD', minAmountMinor: 100n, maxAmountMinor: 9000n };
      for (let i = 0; i < 3; i++) {
        await service.list(m.id, {});
        await service.list(m.id, filter);
      }
      const plans = await handle.db.execute<{ statement: string; generic_plans: string; custom_plans: string }>(
        // This statement is prepared too: it names itself, so it is left out by what only it says.
        sql`select statement, generic_plans, custom_plans from pg_prepared_statements where statement like '%from "checkout_sessions"%' and statement not like '%pg_prepared_statements%'`,
      );
      const filtered = plans.find((p) => p.statement.includes('"amount_minor" >='));
      const plain = plans.find((p) => !p.statement.includes('"status" in'));
      expect(Number(plain?.generic_plans)).toBe(3);
      expect(Number(filtered?.generic_plans)).toBe(0);
      expect(Number(filtered?.custom_plans)).toBe(3);
      // The session's own setting is left as it was (SET LOCAL ends with the list's transaction).
      const [mode] = await handle.db.execute<{ plan_cache_mode: string }>(sql`show plan_cache_mode`);
      expect(mode?.plan_cache_mode).toBe('force_generic_plan');
    } finally {
      await handle.close();
    }
  });

  it("finds a payment by its payout's transaction hash", async () => {
    const m = await createApprovedMerchant(ctx.app);
    await ctx.db.db.insert(checkoutSessions).values({
      id: 'SV_listPayoutHash',
      merchantId: m.id,
      status: 'completed',
      amountMinor: 1250n,
      currency: 'USD',
      countryCode: 'US',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      commissionBps: 100,
      provider: 'sandbox',
      railType: 'fiat_to_crypto',
      expiresAt: new Date(BASE + 86_400_000),
    });
    const hash = '0x' + 'e'.repeat(64);
    await ctx.db.db.insert(payouts).values({
      id: 'po_listPayoutHash000000000',
      paymentId: 'SV_listPayoutHash',
      kind: 'merchant',
      network: 'polygon',
      asset: 'USDC',
      fromAddress: '0x0000000000000000000000000000000000000002',
      toAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      amount: '1',
      txHash: hash,
    });
    const page = await ctx.app.payments.merchantPayments.list(m.id, { search: paymentSearch(hash.toUpperCase().replace('0X', '0x'))! });
    expect(page.items.map((r) => r.id)).toEqual(['SV_listPayoutHash']);
  });
});
