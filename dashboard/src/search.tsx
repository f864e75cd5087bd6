import { Button, Dialog, Kbd, TextField } from '@radix-ui/themes';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, type PaymentRow } from './api';
import { ErrorText, formValues } from './ui';
import { Amount, StatusBadge } from './values';

// One search box for a payment from any page, opened with ⌘K / Ctrl+K or / as in other dashboards.
// It asks the payments list's own search (GET /payments?q=): the server reads what was typed as a
// transaction hash, an email, a payment id or else an order id (src/domain/payment-list.ts).

const SHOWN = 5;

/** Whether a key press is typing into a field (where / is a character, not the shortcut). */
function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

export function PaymentSearchBox() {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const inputId = useId();
  const search = useMutation({
    mutationFn: (q: string) =>
      api<{ payments: PaymentRow[] }>('GET', `/payments?${new URLSearchParams({ q, limit: String(SHOWN) }).toString()}`),
    onSuccess: async (r) => {
      // One match is the payment looked for: straight to its page.
      if (r.payments.length === 1) {
        setOpen(false);
        await navigate({ to: '/payments/$id', params: { id: r.payments[0]!.id } });
      }
    },
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const modK = e.key.toLowerCase() === 'k' && (e.metaKey || e.ctrlKey);
      if (modK || (e.key === '/' && !e.metaKey && !e.ctrlKey && !e.altKey && !typing(e.target))) {
        e.preventDefault();
        setOpen(true);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) search.reset();
  };
  const submitted = search.variables ?? '';
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger>
        <Button type="button" variant="soft" className="search-button" aria-keyshortcuts="Control+K Meta+K /">
          Search<span className="wide-only"> payments</span>{' '}
          <Kbd size="1" aria-hidden="true" className="wide-only">
            /
          </Kbd>
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="32rem" aria-describedby={`${inputId}-hint`}>
        <Dialog.Title>Find a payment</Dialog.Title>
        <form
          role="search"
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            const q = formValues(e.currentTarget).q?.trim() ?? '';
            if (q) search.mutate(q);
          }}
        >
          <div className="field">
            <label htmlFor={inputId}>Payment id, order id or transaction hash</label>
            <TextField.Root
              id={inputId}
              name="q"
              type="search"
              autoComplete="off"
              spellCheck={false}
              required
              aria-describedby={`${inputId}-hint`}
            />
            <p className="hint" id={`${inputId}-hint`}>
              A customer’s email finds their payments too.
            </p>
          </div>
          <div className="actions">
            <Button type="submit" disabled={search.isPending}>
              Search
            </Button>
            <Dialog.Close>
              <Button type="button" variant="soft" color="gray">
                Close
              </Button>
            </Dialog.Close>
          </div>
        </form>
        <ErrorText error={search.error} />
        {search.data && search.data.payments.length !== 1 && (
          <div role="status" className="search-results">
            {search.data.payments.length === 0 ? (
              <p>
                No payment matches <q>{submitted}</q>. Check the id, or look through{' '}
                <Link to="/payments" onClick={() => setOpen(false)}>
                  every payment
                </Link>
                .
              </p>
            ) : (
              <>
                <p>{search.data.payments.length === SHOWN ? `The ${SHOWN} newest matches:` : `${search.data.payments.length} matches:`}</p>
                <ul className="plain">
                  {search.data.payments.map((p) => (
                    <li key={p.id}>
                      <Link to="/payments/$id" params={{ id: p.id }} onClick={() => setOpen(false)}>
                        <code>{p.id}</code>
                      </Link>{' '}
                      <StatusBadge status={p.status} label={p.partlyPaid ? 'partly paid' : undefined} />{' '}
                      <Amount value={p.amount} unit={p.currency} />
                      {p.orderId ? ` · order ${p.orderId}` : ''}
                    </li>
                  ))}
                </ul>
                <p>
                  <Link to="/payments" search={{ q: submitted }} onClick={() => setOpen(false)}>
                    All matches in Payments
                  </Link>
                </p>
              </>
            )}
          </div>
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}
