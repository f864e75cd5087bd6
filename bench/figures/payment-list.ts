import postgres from 'postgres';
import { createDb } from '../../src/db/client';
import { encodeListCursor, paymentSearch, type PaymentListFilter } from '../../src/domain/payment-list';
import { merchantPayments } from '../../src/payments/merchant-payments';
import type { BenchOptions } from '../options';
import { figureFrom, type Figure } from '../support/figures';
import { interleaved, median } from '../support/stats';

// The merchant's payment list on 100,000 payments of one merchant (and 20,000 of
// another, in the same table), through the use case the dashboard's route calls (drizzle, the
// keyset page, the cursor), against the same query written by hand in postgres.js.

const MERCHANT = 'MER_benchlist000000A';
const OTHER = 'MER_benchlist000000B';
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
export const LIST_PAYMENTS = 100_000;
const PAGE = 25;

async function seed(sql: postgres.Sql) {
  for (const id of [MERCHANT, OTHER]) {
    await sql`insert into merchants (id, name, status, security_code_hash) values (${id}, ${id}, 'approved', 'x')`;
  }
  // Statuses, currencies, assets, networks, rails and emails spread by the row number; one
  // payment in a hundred has an open exception; a minute apart, so the newest is the highest g.
  const rows = async (merchantId: string, count: number, prefix: string) => {
    await sql`
      insert into checkout_sessions (id, merchant_id, status, amount_minor, currency, country_code, destination_asset, network,
        wallet_address, commission_bps, provider, rail_type, customer_email, order_id, expires_at, created_at)
      select ${prefix} || lpad(g::text, 10, '0'), ${merchantId},
        (array['pending','processing','completed','failed','expired','canceled'])[1 + g % 6],
        100 + (g * 7919) % 100000, case when g % 3 = 0 then 'EUR' else 'USD' end, 'US',
        case when g % 2 = 0 then 'USDC' else 'USDT' end, case when g % 4 = 0 then 'base' else 'polygon' end,
        ${WALLET}, 100, 'sandbox', case when g % 5 = 0 then 'crypto_transfer' else 'fiat_to_crypto' end,
        case when g % 10 = 0 then 'customer' || (g % 5000) || '@shop.test' end, 'order-' || g,
        now() + interval '1 day', timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute'
      from generate_series(1, ${count}) g`;
    await sql`
      insert into payment_exceptions (id, payment_kind, payment_id, kind, amount_micro, status)
      select 'exc_' || ${prefix} || g, 'checkout_session', ${prefix} || lpad(g::text, 10, '0'), 'overpaid', 1000, 'open'
      from generate_series(100, ${count}, 100) g`;
  };
  await rows(MERCHANT, LIST_PAYMENTS, 'SV_benchA');
  await rows(OTHER, 20_000, 'SV_benchB');
  await sql`analyze checkout_sessions`;
  await sql`analyze payment_exceptions`;
}

interface Case {
  id: string;
  title: string;
  filter: PaymentListFilter;
  /** Start after this row (a page deep in the list), or from the newest. */
  after?: { at: string; id: string };
  bare: (sql: postgres.Sql) => postgres.PendingQuery<postgres.Row[]>;
}

// The same columns, conditions, order and limit (a page and one row more) as db/queries/merchant-payments.ts.
const bareList = (sql: postgres.Sql, where: postgres.PendingQuery<postgres.Row[]>) => sql`
  select s.id, s.status, s.source, s.amount_minor, s.currency, s.destination_asset, s.network, s.rail_type, s.provider,
    s.order_id, s.merchant_order_id, s.customer_email, s.payment_link_id, s.created_at, s.completed_at,
    (select count(*)::int from payment_exceptions e where e.payment_id = s.id and e.status = 'open') as open_exceptions
  from checkout_sessions s
  where s.merchant_id = ${MERCHANT} ${where}
  order by s.created_at desc, s.id desc limit ${PAGE + 1}`;

const minuteOf = (g: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + g * 60_000).toISOString().replace('Z', '000Z');
const idOf = (g: number) => `SV_benchA${String(g).padStart(10, '0')}`;

const CASES: Case[] = [
  { id: 'first_page', title: 'first page', filter: {}, bare: (sql) => bareList(sql, sql``) },
  {
    id: 'deep_page',
    title: 'page at row 50,000 (cursor)',
    filter: {},
    after: { at: minuteOf(50_000), id: idOf(50_000) },
    bare: (sql) => bareList(sql, sql`and (s.created_at, s.id) < (${minuteOf(50_000)}::timestamptz, ${idOf(50_000)})`),
  },
  {
    id: 'filtered',
    title: 'status, currency, amount, asset and open exceptions',
    filter: {
      statuses: ['completed', 'failed'],
      currency: 'USD',
      minAmountMinor: 1000n,
      maxAmountMinor: 90_000n,
      asset: 'USDC',
      openExceptions: true,
    },
    bare: (sql) =>
      bareList(
        sql,
        sql`and s.status in ('completed', 'failed') and s.currency = 'USD' and s.amount_minor >= 1000 and s.amount_minor <= 90000
          and s.destination_asset = 'USDC'
          and exists (select 1 from payment_exceptions e where e.payment_id = s.id and e.status = 'open')`,
      ),
  },
  {
    id: 'search_email',
    title: 'search by customer email',
    filter: { search: paymentSearch('Customer70@Shop.test')! },
    bare: (sql) => bareList(sql, sql`and lower(s.customer_email) = 'customer70@shop.test'`),
  },
];

export async function paymentListFigures(input: {
  options: BenchOptions;
  databaseUrl: string;
  log: (line: string) => void;
}): Promise<Figure[]> {
  const bare = postgres(input.databaseUrl, { max: 1, onnotice: () => {} });
  const ours = createDb(input.databaseUrl, { max: 1 });
  try {
    const t0 = performance.now();
    await seed(bare);
    input.log(`payment list: seeded ${LIST_PAYMENTS} + 20000 payments in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const service = merchantPayments({ db: ours.db });
    const figures: Figure[] = [];
    for (const c of CASES) {
      const cursor = c.after ? encodeListCursor(c.after) : undefined;
      const oursCall = async () =>
        (await service.list(MERCHANT, c.filter, { ...(cursor ? { cursor } : {}), limit: PAGE })).items.map((r) => r.id);
      const bareCall = async () => (await c.bare(bare)).slice(0, PAGE).map((r) => r.id as string);
      // Both sides answer the same page, or the comparison means nothing.
      const [a, b] = [await oursCall(), await bareCall()];
      if (a.length === 0 || JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`payment list ${c.id}: ours and bare differ`);
      const timed = (call: () => Promise<string[]>) => async () => {
        const ms: number[] = [];
        for (let i = 0; i < input.options.listCalls; i++) {
          const start = performance.now();
          await call();
          ms.push(performance.now() - start);
        }
        return { ms: median(ms) };
      };
      const rounds = await interleaved(input.options.rounds, timed(oursCall), timed(bareCall));
      figures.push(
        figureFrom(rounds, 'ms', {
          id: `payment_list_${c.id}_ms`,
          title: `payment list: ${c.title}`,
          unit: 'ms',
          better: 'lower',
          includes: `One page of ${PAGE} of one merchant's ${LIST_PAYMENTS} payments (20,000 of another merchant's in the same table), newest first, through merchantPayments.list (filter check, drizzle, the keyset query with its open-exception count, the next cursor); median of ${input.options.listCalls} calls one after another, one connection.`,
          baselineIs: 'the same SQL (columns, conditions, order, limit) written by hand in postgres.js, one connection.',
        }),
      );
      input.log(`payment list ${c.id}: ours ${figures.at(-1)!.ours.toFixed(2)} ms vs bare ${figures.at(-1)!.baseline.toFixed(2)} ms`);
    }
    return figures;
  } finally {
    await ours.close();
    await bare.end({ timeout: 2 });
  }
}
