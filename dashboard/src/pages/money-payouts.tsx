import { Table } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, type Payout } from '../api';
import { formatCrypto, parseCrypto } from '../../../src/domain/money';
import type { ChartDay } from '../chart';
import { formatAmount } from '../format';
import { EmptyState, ErrorText, PagePending } from '../ui';
import { Amount, DayChart, StateBadge, When } from '../values';
import { ScrollTable } from '../table';
import type { MoneySearch } from '../search-params';

// The Money page's payouts (docs/settlement.md): what each settlement run sent to the merchant's
// wallet and the payments it paid, drawn per day, a page at a time (the page's cursor in the URL).

// The first page of payouts has no cursor; the trail marks it so.
const FIRST = '~';

const date = (iso: string | null) => (iso ? <When at={iso} /> : '—');

function PaymentLink({ paymentId }: { paymentId: string }) {
  return (
    <a href={`/dashboard/payments/${paymentId}`}>
      <code>{paymentId}</code>
    </a>
  );
}

/** The payments a payout paid: one is linked as it is; several fold under their count. */
function PaidPayments({ payout }: { payout: Payout }) {
  const [only] = payout.payments;
  if (payout.payments.length === 1 && only) return <PaymentLink paymentId={only.paymentId} />;
  return (
    <details data-testid="payout-payments">
      <summary>
        {payout.payments.length} payments<span className="visually-hidden"> of payout {payout.id}</span>
      </summary>
      <ul className="plain">
        {payout.payments.map((i) => (
          <li key={i.paymentId}>
            <PaymentLink paymentId={i.paymentId} />: <Amount value={i.amount} unit={payout.asset} />
          </li>
        ))}
      </ul>
    </details>
  );
}

const DAYS = 30;

/**
 * The payouts listed on this page, confirmed in the last 30 days (UTC), per day: each asset's sum
 * exact (in micro-units), the bar's height the dollar tokens together.
 */
function payoutDays(payouts: Payout[], now: Date): ChartDay[] {
  const today = Math.floor(now.getTime() / 86_400_000);
  const days = Array.from({ length: DAYS }, (_, i) => new Date((today - DAYS + 1 + i) * 86_400_000).toISOString().slice(0, 10));
  const sums = new Map(days.map((d) => [d, { byAsset: new Map<string, bigint>(), count: 0 }]));
  for (const p of payouts) {
    const day = p.confirmedAt?.slice(0, 10);
    const sum = day ? sums.get(day) : undefined;
    if (!sum) continue;
    sum.byAsset.set(p.asset, (sum.byAsset.get(p.asset) ?? 0n) + parseCrypto(p.amount));
    sum.count += 1;
  }
  return days.map((day) => {
    const sum = sums.get(day)!;
    const parts = [...sum.byAsset].map(([asset, micro]) => formatAmount(formatCrypto(micro), asset));
    const value = [...sum.byAsset.values()].reduce((n, micro) => n + Number(micro) / 1e6, 0);
    return { day, value, amount: parts.length ? parts.join(' + ') : '0', count: sum.count };
  });
}

export function Payouts({ search }: { search: MoneySearch }) {
  const query = new URLSearchParams(search.payouts ? { cursor: search.payouts } : {}).toString();
  const payouts = useQuery({
    queryKey: ['payouts', query],
    queryFn: () => api<{ payouts: Payout[]; nextCursor: string | null }>('GET', `/payouts${query ? `?${query}` : ''}`),
  });
  const trail = search.payoutsTrail ? search.payoutsTrail.split('.') : [];
  const previous = trail.at(-1);
  const others = { ...(search.from ? { from: search.from } : {}), ...(search.to ? { to: search.to } : {}) };
  return (
    <section aria-labelledby="payouts">
      <h2 id="payouts">Payouts</h2>
      <p>
        What each settlement run sent to your wallet on chain, and the payments it paid.{' '}
        <a href="/dashboard/api/payouts.csv">Download payouts as CSV</a>
      </p>
      <ErrorText error={payouts.error} />
      {!payouts.data && !payouts.error && <PagePending />}
      {payouts.data?.payouts.some((p) => p.confirmedAt) && (
        <DayChart
          testId="payouts-chart"
          title="Paid out per day, last 30 days (UTC)"
          caption="Paid out per day over the last 30 days (UTC), of the payouts listed below, by the day each was confirmed."
          amountLabel="Paid out"
          countLabel="payouts"
          days={payoutDays(payouts.data.payouts, new Date())}
        />
      )}
      {payouts.data?.payouts.length === 0 && (
        <EmptyState title="No payout yet">
          Each settlement run pays what your balance holds to your settlement wallet; its payouts are listed here.
        </EmptyState>
      )}
      <ScrollTable label="Payouts, scrollable" head={['Payments', 'Amount', 'Status', 'To', 'Transaction', 'Confirmed']}>
        {payouts.data?.payouts.map((p) => (
          <Table.Row key={p.id} data-testid="payout">
            <Table.Cell>
              <PaidPayments payout={p} />
            </Table.Cell>
            <Table.Cell>
              <Amount value={p.amount} unit={p.asset} /> on {p.network}
            </Table.Cell>
            <Table.Cell>
              <StateBadge state={p.status} />
              {p.failureReason ? ` (${p.failureReason})` : ''}
            </Table.Cell>
            <Table.Cell>
              <code>{p.toAddress}</code>
            </Table.Cell>
            <Table.Cell>{p.txHash ? <code>{p.txHash}</code> : '—'}</Table.Cell>
            <Table.Cell>{date(p.confirmedAt)}</Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
      <nav aria-label="Payout pages" className="actions">
        {previous !== undefined && (
          <Link
            to="/money"
            search={{
              ...others,
              ...(previous === FIRST ? {} : { payouts: previous }),
              ...(trail.length > 1 ? { payoutsTrail: trail.slice(0, -1).join('.') } : {}),
            }}
          >
            Previous payouts
          </Link>
        )}
        {payouts.data?.nextCursor && (
          <Link
            to="/money"
            search={{ ...others, payouts: payouts.data.nextCursor, payoutsTrail: [...trail, search.payouts ?? FIRST].join('.') }}
          >
            Next payouts
          </Link>
        )}
      </nav>
    </section>
  );
}
