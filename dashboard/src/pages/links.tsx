import { Button, Callout, Table, TextField } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import { api, can, FIAT_CURRENCIES, type PaymentLink, type Wallet } from '../api';
import { Confirm, Notice, EmptyState, ErrorText, FieldError, invalidProps, Page } from '../ui';
import { Amount, CopyButton, StateBadge, When } from '../values';
import { ScrollTable } from '../table';
import { fieldError } from '../field-errors';
import { useToast } from '../toast';

// Payment links. Owners, admins and developers make and deactivate them; a viewer
// reads. Each link's sessions are the payment list filtered by the link.

const EXPIRIES: [number, string][] = [
  [60, '1 hour'],
  [1440, '1 day'],
  [10_080, '7 days'],
  [43_200, '30 days'],
];

function CreateLink() {
  const queryClient = useQueryClient();
  const ids = { amount: useId(), currency: useId(), wallet: useId(), description: useId(), order: useId(), expires: useId() };
  const wallets = useQuery({ queryKey: ['wallets'], queryFn: () => api<{ wallets: Wallet[] }>('GET', '/wallets') });
  const [made, setMade] = useState<PaymentLink | null>(null);
  const toast = useToast();
  const create = useMutation({
    mutationFn: (body: object) => api<{ link: PaymentLink }>('POST', '/payment-links', body),
    onSuccess: (r) => {
      setMade(r.link);
      toast('Payment link created.');
      void queryClient.invalidateQueries({ queryKey: ['payment-links'] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => {
      const v = f.get(k);
      return typeof v === 'string' ? v.trim() : '';
    };
    const [destinationAsset, network] = text('wallet').split(' ');
    create.mutate({
      // The v1 API's amount is a JSON number; its text is what was typed, so nothing is rounded.
      amount: Number(text('amount')),
      currency: text('currency'),
      ...(destinationAsset ? { destinationAsset, network } : {}),
      ...(text('description') ? { description: text('description') } : {}),
      ...(text('merchantOrderId') ? { merchantOrderId: text('merchantOrderId') } : {}),
      expiresInMinutes: Number(text('expiresInMinutes')),
    });
  };
  return (
    <section aria-labelledby="new-link">
      <h2 id="new-link">New payment link</h2>
      {wallets.data?.wallets.length === 0 && (
        <Notice>
          Set a settlement wallet first: <Link to="/money">Money</Link>.
        </Notice>
      )}
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={ids.amount}>Amount</label>
          <TextField.Root
            id={ids.amount}
            name="amount"
            inputMode="decimal"
            required
            pattern="\d+(\.\d+)?"
            {...invalidProps(ids.amount, fieldError(create.error, 'amount'))}
          />
          <FieldError id={ids.amount} message={fieldError(create.error, 'amount')} />
        </div>
        <div className="field">
          <label htmlFor={ids.currency}>Currency</label>
          <select id={ids.currency} name="currency" defaultValue="USD">
            {FIAT_CURRENCIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.wallet}>Settles to</label>
          <select id={ids.wallet} name="wallet">
            {wallets.data?.wallets.map((w) => (
              <option key={`${w.asset} ${w.network}`} value={`${w.asset} ${w.network}`}>
                {w.asset} on {w.network} ({w.address.slice(0, 8)}…{w.address.slice(-4)})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.description}>Description (shown to the customer)</label>
          <TextField.Root id={ids.description} name="description" maxLength={500} />
        </div>
        <div className="field">
          <label htmlFor={ids.order}>Your order id (optional)</label>
          <TextField.Root id={ids.order} name="merchantOrderId" maxLength={255} />
        </div>
        <div className="field">
          <label htmlFor={ids.expires}>Expires after</label>
          <select id={ids.expires} name="expiresInMinutes" defaultValue="10080">
            {EXPIRIES.map(([minutes, text]) => (
              <option key={minutes} value={minutes}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <ErrorText error={create.error} />
        <Button type="submit" disabled={create.isPending}>
          Create the link
        </Button>
      </form>
      {made && (
        <Callout.Root color="green" highContrast role="status" className="callout">
          <Callout.Text>
            Link created: <code data-testid="new-link-url">{made.url}</code>
          </Callout.Text>
        </Callout.Root>
      )}
    </section>
  );
}

function LinkList({ canChange }: { canChange: boolean }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const links = useQuery({ queryKey: ['payment-links'], queryFn: () => api<{ links: PaymentLink[] }>('GET', '/payment-links') });
  const deactivate = useMutation({
    mutationFn: (id: string) => api('POST', `/payment-links/${id}/deactivate`),
    onSuccess: () => {
      toast('Payment link deactivated: it takes no new payments.');
      void queryClient.invalidateQueries({ queryKey: ['payment-links'] });
    },
  });
  return (
    <section aria-labelledby="your-links">
      <h2 id="your-links">Your links</h2>
      <ErrorText error={links.error ?? deactivate.error} />
      {links.data?.links.length === 0 && (
        <EmptyState title="No link yet">
          A link is a checkout page to share by mail or chat: create one above, and its sessions are counted here.
        </EmptyState>
      )}
      <ScrollTable label="Payment links, scrollable" head={['Link', 'Amount', 'Status', 'Sessions', 'Expires', '']}>
        {links.data?.links.map((l) => (
          <Table.Row key={l.id} data-testid="link">
            <Table.Cell>
              <code>{l.url}</code> <CopyButton value={l.url} what="the URL" />
              {l.description && (
                <>
                  <br />
                  <small>{l.description}</small>
                </>
              )}
            </Table.Cell>
            <Table.Cell>
              <Amount value={l.amount} unit={l.currency} />
              <br />
              <small>
                {l.destinationAsset} on {l.network}
              </small>
            </Table.Cell>
            <Table.Cell data-testid="link-status">
              <StateBadge state={l.status} />
            </Table.Cell>
            <Table.Cell>
              <Link to="/payments" search={{ link: l.id }}>
                {l.sessions} sessions, {l.completed} paid<span className="visually-hidden"> of {l.url}</span>
              </Link>
            </Table.Cell>
            <Table.Cell>
              <When at={l.expiresAt} />
            </Table.Cell>
            <Table.Cell>
              {canChange && l.status === 'active' && (
                <Confirm
                  label={
                    <>
                      Deactivate<span className="visually-hidden"> {l.url}</span>
                    </>
                  }
                  title="Deactivate this link?"
                  description="Its page takes no new payment from now on. A customer already paying it can still finish."
                  confirmLabel="Deactivate the link"
                  onConfirm={() => deactivate.mutate(l.id)}
                  disabled={deactivate.isPending}
                />
              )}
            </Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
    </section>
  );
}

export function Links() {
  return (
    <Page title="Payment links">
      {(me) => (
        <>
          <p>A link is a page your customer pays once, until it expires. Share its URL anywhere.</p>
          {can(me.user.role, 'links.manage') ? <CreateLink /> : <p>Your role reads links; owners, admins and developers make them.</p>}
          <LinkList canChange={can(me.user.role, 'links.manage')} />
        </>
      )}
    </Page>
  );
}
