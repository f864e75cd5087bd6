import { Button, Callout, Table, TextField } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useId, type FormEvent } from 'react';
import { api, can, ASSETS, NETWORKS, type Me, type Payout, type Settlement, type Wallet } from '../api';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { formatCrypto, parseCrypto } from '../../../src/domain/money';
import type { ChartDay } from '../chart';
import { formatAmount } from '../format';
import { Amount, DayChart, EmptyState, ErrorText, FieldError, invalidProps, Notice, Page, PagePending, StateBadge, When } from '../ui';
import { ScrollTable } from '../table';
import { fieldError } from '../field-errors';
import { Balance } from './money-balance';
import { moneySearch, type MoneySearch } from '../search-params';

// The merchant's money (docs/settlement.md): the balance per network and asset, when it is paid out
// and the least a payout pays, where to top it up, where payouts go, and what was paid. Every role
// reads; owners and admins change a wallet or the schedule after confirming it is them (the step-up
// dialog; every owner is mailed of a wallet change), and ask for a payout now. The settlements'
// dates and the payouts' page live in the URL, as the payments list's filters do.

// The first page of payouts has no cursor; the trail marks it so.
const FIRST = '~';

const date = (iso: string | null) => (iso ? <When at={iso} /> : '—');

function ChangeWallet() {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const ids = { asset: useId(), network: useId(), address: useId() };
  const toast = useToast();
  const change = useMutation({
    mutationFn: (body: object) => stepUp(() => api<{ wallet: Wallet }>('POST', '/wallets', body), { what: 'change a settlement wallet' }),
    onSuccess: (r) => {
      toast(`Settlement wallet for ${r.wallet.asset} on ${r.wallet.network} saved.`);
      void queryClient.invalidateQueries({ queryKey: ['wallets'] });
    },
  });
  const addressError = fieldError(change.error, 'address');
  return (
    <form
      aria-label="Set a settlement wallet"
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        change.mutate(Object.fromEntries(new FormData(e.currentTarget).entries()));
      }}
    >
      <div className="field">
        <label htmlFor={ids.asset}>Asset</label>
        <select id={ids.asset} name="asset">
          {ASSETS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.network}>Network</label>
        <select id={ids.network} name="network">
          {NETWORKS.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.address}>Address</label>
        <TextField.Root
          id={ids.address}
          name="address"
          required
          autoComplete="off"
          spellCheck={false}
          {...invalidProps(ids.address, addressError, `${ids.address}-hint`)}
        />
        <p className="hint" id={`${ids.address}-hint`}>
          Mixed-case EVM addresses must carry their checksum (EIP-55): a mistyped address is refused, not paid.
        </p>
        <FieldError id={ids.address} message={addressError} />
      </div>
      <ErrorText error={change.error} />
      {change.data && (
        <Callout.Root color="green" highContrast role="status" className="callout">
          <Callout.Text>
            {change.data.wallet.asset} on {change.data.wallet.network} now settles to <code>{change.data.wallet.address}</code>. The owners
            were told by mail.
          </Callout.Text>
        </Callout.Root>
      )}
      <Button type="submit" disabled={change.isPending}>
        Set the wallet
      </Button>
    </form>
  );
}

function Wallets({ me }: { me: Me }) {
  const wallets = useQuery({ queryKey: ['wallets'], queryFn: () => api<{ wallets: Wallet[] }>('GET', '/wallets') });
  const mayChange = can(me.user.role, 'wallets.manage');
  return (
    <section aria-labelledby="wallets">
      <h2 id="wallets">Settlement wallets</h2>
      <ErrorText error={wallets.error} />
      {wallets.data?.wallets.length === 0 && (
        <EmptyState title="No wallet yet">Payments need one for their asset and network: set it below.</EmptyState>
      )}
      <ScrollTable label="Settlement wallets, scrollable" head={['Asset', 'Network', 'Address', 'Changed']}>
        {wallets.data?.wallets.map((w) => (
          <Table.Row key={`${w.asset}-${w.network}`} data-testid="wallet">
            <Table.Cell>{w.asset}</Table.Cell>
            <Table.Cell>{w.network}</Table.Cell>
            <Table.Cell>
              <code>{w.address}</code>
            </Table.Cell>
            <Table.Cell>{date(w.updatedAt)}</Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
      {mayChange ? <ChangeWallet /> : <Notice>Owners and admins change wallets.</Notice>}
    </section>
  );
}

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

function Payouts({ search }: { search: MoneySearch }) {
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

/** The API's query for the settlements: a day typed in `to` counts whole (the API's `to` is exclusive: the next day's start). */
function settlementQuery(search: MoneySearch): string {
  const q: Record<string, string> = {};
  if (search.from) q.from = search.from;
  if (search.to)
    q.to = /^\d{4}-\d{2}-\d{2}$/.test(search.to) ? new Date(Date.parse(search.to) + 86_400_000).toISOString().slice(0, 10) : search.to;
  return new URLSearchParams(q).toString();
}

function SettlementDates({ search }: { search: MoneySearch }) {
  const navigate = useNavigate();
  const ids = { from: useId(), to: useId() };
  return (
    // A new key per search: the uncontrolled fields take the URL's values again after Back or Clear.
    <form
      aria-label="Settlement dates"
      key={`${search.from ?? ''}|${search.to ?? ''}`}
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const next: MoneySearch = search.payouts
          ? { payouts: search.payouts, ...(search.payoutsTrail ? { payoutsTrail: search.payoutsTrail } : {}) }
          : {};
        for (const key of ['from', 'to'] as const) {
          const v = data.get(key);
          if (typeof v === 'string' && v !== '') next[key] = v;
        }
        void navigate({ to: '/money', search: next });
      }}
    >
      <div className="filters">
        <div className="field">
          <label htmlFor={ids.from}>Settled from (UTC)</label>
          <TextField.Root id={ids.from} name="from" type="date" defaultValue={search.from ?? ''} />
        </div>
        <div className="field">
          <label htmlFor={ids.to}>Settled until (UTC, inclusive)</label>
          <TextField.Root id={ids.to} name="to" type="date" defaultValue={search.to ?? ''} />
        </div>
      </div>
      <div className="actions">
        <Button type="submit">Show these dates</Button>
        <Link
          to="/money"
          search={search.payouts ? { payouts: search.payouts, ...(search.payoutsTrail ? { payoutsTrail: search.payoutsTrail } : {}) } : {}}
        >
          All dates
        </Link>
      </div>
    </form>
  );
}

function Settlements({ search }: { search: MoneySearch }) {
  const query = settlementQuery(search);
  const settlements = useQuery({
    queryKey: ['settlements', query],
    queryFn: () => api<{ settlements: Settlement[] }>('GET', `/settlements${query ? `?${query}` : ''}`),
  });
  return (
    <section aria-labelledby="settlements">
      <h2 id="settlements">Settlements</h2>
      <p>
        Payments whose payout was confirmed: gross, commission and net.{' '}
        <a href={`/dashboard/api/settlements.csv${query ? `?${query}` : ''}`}>
          Download {search.from || search.to ? 'these settlements' : 'settlements'} as CSV
        </a>
      </p>
      <SettlementDates search={search} />
      <ErrorText error={settlements.error} />
      {settlements.data?.settlements.length === 0 && (
        <EmptyState title={search.from || search.to ? 'Nothing settled between these dates' : 'Nothing settled yet'}>
          A payment is listed here once the payout that paid it is confirmed on chain.
        </EmptyState>
      )}
      <ScrollTable label="Settlements, scrollable" head={['Payment', 'Gross', 'Commission', 'Net', 'Settled']}>
        {settlements.data?.settlements.map((s) => (
          <Table.Row key={s.paymentId} data-testid="settlement">
            <Table.Cell>
              <code>{s.paymentId}</code>
              {s.orderId && (
                <>
                  <br />
                  <small>order {s.orderId}</small>
                </>
              )}
            </Table.Cell>
            <Table.Cell>
              <Amount value={s.gross} unit={s.asset} />
            </Table.Cell>
            <Table.Cell>
              <Amount value={s.commission} unit={s.asset} />
            </Table.Cell>
            <Table.Cell>
              <Amount value={s.net} unit={s.asset} />
            </Table.Cell>
            <Table.Cell>{date(s.settledAt)}</Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
    </section>
  );
}

export function Money() {
  // The route's validateSearch made these strings (moneySearch); read loosely, as this module is the router's import.
  const search = moneySearch(useSearch({ strict: false }));
  return (
    <Page title="Money">
      {(me) => (
        <>
          <Balance me={me} />
          <Wallets me={me} />
          <Payouts search={search} />
          <Settlements search={search} />
        </>
      )}
    </Page>
  );
}
