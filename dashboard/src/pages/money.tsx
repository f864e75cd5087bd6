import { Button, Callout, Table, TextField } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useId, type FormEvent } from 'react';
import { api, can, ASSETS, NETWORKS, type Me, type Settlement, type Wallet } from '../api';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { EmptyState, ErrorText, FieldError, invalidProps, Notice, Page } from '../ui';
import { Amount, When } from '../values';
import { ScrollTable } from '../table';
import { fieldError } from '../field-errors';
import { Balance } from './money-balance';
import { Payouts } from './money-payouts';
import { moneySearch, type MoneySearch } from '../search-params';

// The merchant's money (docs/settlement.md): the balance per network and asset, when it is paid out
// and the least a payout pays, where to top it up, where payouts go, and what was paid. Every role
// reads; owners and admins change a wallet or the schedule after confirming it is them (the step-up
// dialog; every owner is mailed of a wallet change), and ask for a payout now. The settlements'
// dates and the payouts' page live in the URL, as the payments list's filters do.

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
