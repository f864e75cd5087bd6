import { Button, Table, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useId, type FormEvent } from 'react';
import { api, ASSETS, FIAT_CURRENCIES, NETWORKS, paidWithText, type PaymentRow } from '../api';
import { partlyPaidText } from '../format';
import { EmptyState, ErrorText, FieldError, invalidProps, Page, PagePending } from '../ui';
import { Amount, StatusBadge, When } from '../values';
import { ScrollTable } from '../table';
import { fieldError } from '../field-errors';
import { FILTERS, paymentSearch, type PaymentSearch } from '../search-params';

// The merchant's payments. The filters live in the URL (a reload or a shared link
// shows the same list); pages are walked by the server's cursor, with the cursors of earlier pages
// kept in the URL too, so Previous works after a reload.

const STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'];
const RAILS: [string, string][] = [
  ['fiat_to_crypto', 'Card or bank (on-ramp)'],
  ['crypto_transfer', 'From a wallet'],
];
// The first page has no cursor; the trail marks it so.
const FIRST = '~';

function filtersOnly(s: PaymentSearch): Record<string, string> {
  return Object.fromEntries(FILTERS.filter((k) => s[k]).map((k) => [k, s[k]!]));
}

/** The API's query string for the list: a date typed as a day is that day's start (from) or the next day's (to: inclusive). */
function apiQuery(s: PaymentSearch): URLSearchParams {
  const f = filtersOnly(s);
  if (f.to && /^\d{4}-\d{2}-\d{2}$/.test(f.to)) f.to = new Date(Date.parse(f.to) + 86_400_000).toISOString().slice(0, 10);
  return new URLSearchParams(f);
}

/** The list's answer for these filters: read by the table, and by the filters for the server's word on each field. */
function usePaymentList(search: PaymentSearch) {
  const query = apiQuery(search);
  if (search.cursor) query.set('cursor', search.cursor);
  return useQuery({
    queryKey: ['payments', query.toString()],
    queryFn: () => api<{ payments: PaymentRow[]; nextCursor: string | null }>('GET', `/payments?${query.toString()}`),
  });
}

function Choice(props: { label: string; name: string; value: string | undefined; options: [string, string][]; error?: unknown }) {
  const id = useId();
  const invalid = fieldError(props.error, props.name);
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} name={props.name} defaultValue={props.value ?? ''} {...invalidProps(id, invalid)}>
        <option value="">All</option>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      <FieldError id={id} message={invalid} />
    </div>
  );
}

function Input(props: {
  label: string;
  name: string;
  value: string | undefined;
  type?: 'text' | 'search' | 'date';
  hint?: string;
  inputMode?: 'decimal';
  error?: unknown;
}) {
  const id = useId();
  const invalid = fieldError(props.error, props.name);
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <TextField.Root
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        inputMode={props.inputMode}
        defaultValue={props.value ?? ''}
        {...invalidProps(id, invalid, props.hint ? `${id}-hint` : undefined)}
      />
      {props.hint && (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldError id={id} message={invalid} />
    </div>
  );
}

function Filters({ search }: { search: PaymentSearch }) {
  const navigate = useNavigate();
  const error = usePaymentList(search).error;
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next: Record<string, string> = {};
    for (const key of FILTERS) {
      const v = data.get(key);
      if (typeof v === 'string' && v.trim() !== '') next[key] = v.trim();
    }
    void navigate({ to: '/payments', search: next });
  };
  return (
    // A new key per search: the uncontrolled fields take the URL's values again after Back or Clear.
    <form aria-label="Filters" onSubmit={apply} key={JSON.stringify(filtersOnly(search))}>
      <Input
        error={error}
        label="Search"
        name="q"
        value={search.q}
        type="search"
        hint="A payment id, an order id, a customer’s email, or a deposit or payout transaction hash."
      />
      <details open={Object.keys(filtersOnly(search)).some((k) => k !== 'q')}>
        <summary>More filters</summary>
        <div className="filters">
          <Choice error={error} label="Status" name="status" value={search.status} options={STATUSES.map((s) => [s, s])} />
          <Input error={error} label="Created from (UTC)" name="from" value={search.from} type="date" />
          <Input error={error} label="Created until (UTC, inclusive)" name="to" value={search.to} type="date" />
          <Choice error={error} label="Currency" name="currency" value={search.currency} options={FIAT_CURRENCIES.map((c) => [c, c])} />
          <Input
            error={error}
            label="Amount at least"
            name="minAmount"
            value={search.minAmount}
            inputMode="decimal"
            hint="Needs a currency."
          />
          <Input
            error={error}
            label="Amount at most"
            name="maxAmount"
            value={search.maxAmount}
            inputMode="decimal"
            hint="Needs a currency."
          />
          <Choice error={error} label="Asset" name="asset" value={search.asset} options={ASSETS.map((a) => [a, a])} />
          <Choice error={error} label="Network" name="network" value={search.network} options={NETWORKS.map((n) => [n, n])} />
          <Choice error={error} label="How it was paid" name="rail" value={search.rail} options={RAILS} />
          <div className="field">
            <label>
              <input type="checkbox" name="openExceptions" value="true" defaultChecked={search.openExceptions === 'true'} />
              Only payments with an open exception
            </label>
          </div>
          {search.link && <input type="hidden" name="link" value={search.link} />}
        </div>
      </details>
      <div className="actions">
        <Button type="submit">Apply</Button>
        <Link to="/payments" search={{}}>
          Clear filters
        </Link>
      </div>
    </form>
  );
}

function List({ search }: { search: PaymentSearch }) {
  const list = usePaymentList(search);
  const trail = search.trail ? search.trail.split('.') : [];
  const previous = trail.at(-1);
  const filters = filtersOnly(search);
  const csv = apiQuery(search).toString();
  return (
    <>
      <p>
        <a href={`/dashboard/api/payments.csv${csv ? `?${csv}` : ''}`} download>
          Download these payments as CSV
        </a>{' '}
        (every page of them)
      </p>
      <ErrorText error={list.error} />
      {list.isPending && <PagePending />}
      {list.data?.payments.length === 0 && Object.keys(filters).length === 0 && (
        <EmptyState title="No payments yet">
          Payments appear here as customers pay: share a <Link to="/links">payment link</Link>, or take one through the API with the{' '}
          <Link to="/quickstart">quickstart</Link>.
        </EmptyState>
      )}
      {list.data && (
        <p role="status">
          {list.data.payments.length === 0
            ? 'No payment matches.'
            : `Showing ${list.data.payments.length} payments${list.data.nextCursor ? ', more on the next page' : ''}.`}
        </p>
      )}
      <ScrollTable
        label="Payments, scrollable"
        head={['Payment', 'Created', 'Status', 'Amount', 'Paid in', 'Order', 'Customer', 'Exceptions']}
      >
        {list.data?.payments.map((p) => (
          <Table.Row key={p.id} data-testid="payment">
            <Table.Cell>
              <a href={`/dashboard/payments/${p.id}`}>
                <code>{p.id}</code>
              </a>
            </Table.Cell>
            <Table.Cell>
              <When at={p.createdAt} />
            </Table.Cell>
            <Table.Cell>
              <span data-testid="payment-status">
                <StatusBadge status={p.status} label={p.partlyPaid ? partlyPaidText(p.partlyPaid, p.asset) : undefined} />
              </span>
            </Table.Cell>
            <Table.Cell>
              <Amount value={p.amount} unit={p.currency} />
            </Table.Cell>
            <Table.Cell>
              {p.asset} on {p.network}
              <br />
              <small data-testid="paid-with">{paidWithText(p.paidWith, p.provider)}</small>
            </Table.Cell>
            <Table.Cell>{p.orderId ?? '—'}</Table.Cell>
            <Table.Cell>{p.customerEmail ?? '—'}</Table.Cell>
            <Table.Cell>{p.openExceptions > 0 ? `${p.openExceptions} open` : '—'}</Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
      <nav aria-label="Pages" className="actions">
        {previous !== undefined && (
          <Link
            to="/payments"
            search={{
              ...filters,
              ...(previous === FIRST ? {} : { cursor: previous }),
              ...(trail.length > 1 ? { trail: trail.slice(0, -1).join('.') } : {}),
            }}
          >
            Previous page
          </Link>
        )}
        {list.data?.nextCursor && (
          <Link to="/payments" search={{ ...filters, cursor: list.data.nextCursor, trail: [...trail, search.cursor ?? FIRST].join('.') }}>
            Next page
          </Link>
        )}
      </nav>
    </>
  );
}

export function Payments() {
  // The route's validateSearch made these strings (paymentSearch); read loosely, as this module is the router's import.
  const search = paymentSearch(useSearch({ strict: false }));
  return (
    // A link's payments are that link's page: its breadcrumbs lead back to the links.
    <Page
      title="Payments"
      parent={search.link ? { to: '/links', label: 'Payment links' } : undefined}
      crumb={search.link ? `Payments of link ${search.link}` : undefined}
    >
      <>
        {search.link && (
          <p>
            The sessions customers opened of payment link <code>{search.link}</code>.
          </p>
        )}
        <Filters search={search} />
        <List search={search} />
      </>
    </Page>
  );
}
