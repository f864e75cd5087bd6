import { Button, Table, TextField } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import {
  api,
  ApiError,
  can,
  formatCryptoAmount,
  networkName,
  paidWithText,
  parseCrypto,
  type Me,
  type PaymentDetail,
  type PaymentException,
  type PaymentProof,
  type PayoutSettings,
  type RefundRequest,
  type TimelineEntry,
  type WebhookDelivery,
} from '../api';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { formatAmount, partlyPaidText } from '../format';
import { Breadcrumbs, ErrorText, FieldError, formValues, invalidProps, PagePending, SignedIn, StateBadge, usePageTitle, When } from '../ui';
import { ScrollTable } from '../table';
import { fieldError } from '../field-errors';
import { checkForm, refundInput } from '../forms';

// One payment, as it happens. The page reads it every 3 s while it is open (the timeline, exceptions
// and deliveries come from Postgres alone), and the chain proof, which reads the chain, every 15 s.
// Every role reads; resends are for the roles that manage webhooks; refunds (of an exception, or of
// the completed payment itself) for owners and admins, after the step-up dialog.

const when = (iso: string) => <When at={iso} />;
// This page shows every decimal of the stablecoin: it is where a merchant checks an amount to the unit.
const exact = (value: string, unit: string) => formatAmount(value, unit, { exact: true });

function Hash({ hash, url }: { hash: string; url: string | null }) {
  const short = `${hash.slice(0, 10)}…${hash.slice(-8)}`;
  return url ? (
    <a href={url} title={hash}>
      <code>{short}</code>
      <span className="visually-hidden"> (transaction {hash} on the explorer)</span>
    </a>
  ) : (
    <code title={hash}>{short}</code>
  );
}

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <p>No attempt yet.</p>;
  return (
    <ol className="attempts">
      {delivery.attempts.map((a, i) => (
        <li key={i}>
          {when(a.at)}: {a.statusCode ?? 'no answer'} in {a.durationMs} ms{a.error ? ` (${a.error})` : ''}
        </li>
      ))}
    </ol>
  );
}

function Resend({ delivery }: { delivery: WebhookDelivery }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const resend = useMutation({
    mutationFn: () => api('POST', `/webhook-deliveries/${delivery.id}/resend`),
    onSuccess: () => {
      toast(`${delivery.eventType} is sent again to ${delivery.url}.`);
      void queryClient.invalidateQueries({ queryKey: ['payment'] });
    },
  });
  return (
    <>
      <Button type="button" variant="soft" onClick={() => resend.mutate()} disabled={resend.isPending}>
        Resend
        <span className="visually-hidden">
          {' '}
          {delivery.eventType} to {delivery.url}
        </span>
      </Button>
      <ErrorText error={resend.error} />
    </>
  );
}

function Timeline({ detail, me }: { detail: PaymentDetail; me: Me }) {
  const deliveries = new Map(detail.deliveries.map((d) => [d.id, d]));
  return (
    <ol className="timeline" aria-label="Timeline">
      {detail.timeline.map((e: TimelineEntry, i) => {
        const delivery = e.kind === 'webhook' && e.ref ? deliveries.get(e.ref) : undefined;
        return (
          <li key={i} data-testid="timeline-entry" data-kind={e.kind}>
            <p>
              {when(e.at)} <strong>{e.title}</strong>
            </p>
            {e.detail && <p className="hint">{e.detail}</p>}
            {e.transactionHash && (
              <p>
                Transaction <Hash hash={e.transactionHash} url={e.explorerUrl} />
                {e.confirmations && <> · {e.confirmations} confirmations</>}
              </p>
            )}
            {delivery && (
              <>
                <Attempts delivery={delivery} />
                {can(me.user.role, 'developers.manage') && <Resend delivery={delivery} />}
              </>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function Proof({ id }: { id: string }) {
  const proof = useQuery({
    queryKey: ['payment', id, 'proof'],
    queryFn: () => api<{ proof: PaymentProof }>('GET', `/payments/${id}/proof`),
    refetchInterval: 15_000,
  });
  const p = proof.data?.proof;
  return (
    <section aria-labelledby="proof">
      <h2 id="proof">Proof on chain</h2>
      <ErrorText error={proof.error} />
      {!p && !proof.error && <p role="status">Reading the chain…</p>}
      {p && (
        <>
          <dl>
            <dt>Deposit address</dt>
            <dd>{p.depositAddress ? <code className="wrap">{p.depositAddress}</code> : 'none (verified by the provider)'}</dd>
            <dt>
              {p.asset} balance there now ({p.network})
            </dt>
            <dd data-testid="proof-balance">{p.chain ? exact(p.chain.balance, p.asset) : (p.chainError ?? 'not read')}</dd>
            <dt>Credited</dt>
            <dd>
              {exact(p.credited, p.asset)} of {p.expectedGross ? exact(p.expectedGross, p.asset) : 'not fixed yet'}
            </dd>
          </dl>
          {p.credits.length === 0 ? (
            <p>No transfer has arrived.</p>
          ) : (
            <ScrollTable label="Transfers to the deposit address" head={['Transaction', 'Amount', 'Block', 'Confirmations', 'State']}>
              {p.credits.map((c) => (
                <Table.Row key={`${c.transactionHash}:${c.logIndex}`}>
                  <Table.Cell>
                    <Hash hash={c.transactionHash} url={c.explorerUrl} />
                  </Table.Cell>
                  <Table.Cell>{exact(c.amount, c.asset ?? c.token)}</Table.Cell>
                  <Table.Cell>{c.blockNumber}</Table.Cell>
                  <Table.Cell>{c.confirmations ?? 'unknown'}</Table.Cell>
                  <Table.Cell>{c.state}</Table.Cell>
                </Table.Row>
              ))}
            </ScrollTable>
          )}
        </>
      )}
    </section>
  );
}

function RefundForm(props: { paymentId: string; exception: PaymentException; asset: string; prefill: string | null }) {
  const { paymentId, exception, asset, prefill } = props;
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const addressId = useId();
  const toast = useToast();
  const refund = useMutation({
    mutationFn: (address: string) =>
      stepUp(() => api('POST', `/payments/${paymentId}/exceptions/${exception.id}/refund`, { address }), {
        what: `send ${exact(exception.amount, asset)} back to ${address}`,
      }),
    onSuccess: () => toast(`Refund of ${exact(exception.amount, asset)} asked for.`),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['payment'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    refund.mutate(formValues(e.currentTarget).address ?? '');
  };
  const addressError = fieldError(refund.error, 'address');
  return (
    <form onSubmit={submit} aria-label={`Refund ${exact(exception.amount, asset)}`}>
      <div className="field">
        <label htmlFor={addressId}>Refund address</label>
        <TextField.Root
          id={addressId}
          name="address"
          defaultValue={prefill ?? ''}
          required
          autoComplete="off"
          spellCheck={false}
          {...invalidProps(addressId, addressError, `${addressId}-hint`)}
        />
        <p className="hint" id={`${addressId}-hint`}>
          {prefill ? 'The address the customer gave on the checkout page.' : 'The customer’s address, checksummed (0x…).'}
        </p>
        <FieldError id={addressId} message={addressError} />
      </div>
      <ErrorText error={refund.error} />
      <Button type="submit" disabled={refund.isPending}>
        Refund {exact(exception.amount, asset)}
      </Button>
    </form>
  );
}

function Exceptions({ detail, me }: { detail: PaymentDetail; me: Me }) {
  if (detail.exceptions.length === 0) return null;
  return (
    <section aria-labelledby="exceptions">
      <h2 id="exceptions">Exceptions</h2>
      <ul className="plain">
        {detail.exceptions.map((x) => (
          <li key={x.id} data-testid="exception">
            <h3>
              {x.kind}: {exact(x.amount, x.asset ?? detail.payment.asset)}
            </h3>
            <p>
              <code>{x.id}</code> ·{' '}
              <span data-testid="exception-status">
                <StateBadge state={x.status} />
              </span>
            </p>
            {x.refund && (
              <p data-testid="refund-state">
                Refund of {exact(x.refund.amount, x.asset ?? detail.payment.asset)} to <code className="wrap">{x.refund.address}</code>:{' '}
                {x.refund.status}
                {x.refund.failureReason && ` (${x.refund.failureReason})`}
                {x.refund.transactionHash && (
                  <>
                    {' '}
                    in <Hash hash={x.refund.transactionHash} url={x.refund.explorerUrl} />
                  </>
                )}
              </p>
            )}
            {x.refundable && can(me.user.role, 'refunds.create') && (
              <RefundForm
                paymentId={detail.payment.id}
                exception={x}
                asset={x.asset ?? detail.payment.asset}
                prefill={detail.payment.refundAddress}
              />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** 128 random bits, hex (getRandomValues works outside secure contexts too). */
const newRequestKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * What the merchant's balance holds for refunds in the payment's network and asset (available and
 * reserved: what a refund may draw, docs/settlement.md), before they type an amount.
 */
function RefundBalance({ detail, id }: { detail: PaymentDetail; id: string }) {
  const settings = useQuery({ queryKey: ['payout-settings'], queryFn: () => api<PayoutSettings>('GET', '/payout-settings') });
  const { asset, network } = detail.payment;
  if (settings.error) return <ErrorText error={settings.error} />;
  if (!settings.data) return <p id={id}>Reading your balance…</p>;
  const balance = settings.data.balances.find((b) => b.network === network && b.asset === asset);
  const micro = balance ? parseCrypto(balance.available) + parseCrypto(balance.reserved) : 0n;
  return (
    <p id={id} data-testid="refund-available">
      Available for refunds: {exact(formatCryptoAmount(micro), asset)} on {networkName(network)}.
      {micro < parseCrypto(detail.refunds.refundableAmount) && (
        <>
          {' '}
          Less than this payment’s rest: <Link to="/money">top up your balance</Link> or wait for more payments.
        </>
      )}
    </p>
  );
}

/**
 * The completed payment refunded, wholly or partly, from the merchant's balance: the amount prefilled
 * with what is left to refund, the address with the customer's (when the checkout collected one), the
 * step-up asked first.
 */
function PaymentRefundForm({ detail }: { detail: PaymentDetail }) {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const amountId = useId();
  const addressId = useId();
  const prefill = detail.payment.refundAddress;
  // One key per refund this form shows: a double click (or a retry after a lost answer) is one refund.
  const [requestKey] = useState(newRequestKey);
  const toast = useToast();
  const refund = useMutation({
    mutationFn: (values: Record<string, string>) => {
      // Checked before the step-up: a refused amount or address asks for no password.
      const body: RefundRequest = checkForm(refundInput, { amount: values.amount, address: values.address, requestKey });
      return stepUp(() => api('POST', `/payments/${detail.payment.id}/refunds`, body), {
        what: `refund ${exact(values.amount ?? '', detail.payment.asset)} to ${values.address ?? ''}`,
      });
    },
    onSuccess: (_r, values) => toast(`Refund of ${exact(values.amount ?? '', detail.payment.asset)} asked for.`),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['payment'] });
      void queryClient.invalidateQueries({ queryKey: ['payout-settings'] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    refund.mutate(formValues(e.currentTarget));
  };
  const amountError = fieldError(refund.error, 'amount');
  const addressError = fieldError(refund.error, 'address');
  return (
    <form onSubmit={submit} aria-label="Refund this payment">
      <div className="field">
        <label htmlFor={amountId}>Amount ({detail.payment.asset})</label>
        <TextField.Root
          id={amountId}
          name="amount"
          inputMode="decimal"
          defaultValue={detail.refunds.refundableAmount}
          required
          autoComplete="off"
          {...invalidProps(amountId, amountError, `${amountId}-hint ${amountId}-balance`)}
        />
        <FieldError id={amountId} message={amountError} />
        <p className="hint" id={`${amountId}-hint`}>
          At most {exact(detail.refunds.refundableAmount, detail.payment.asset)}. The refund is drawn from your balance in{' '}
          {detail.payment.asset} on {networkName(detail.payment.network)}: what is available first, then what is reserved.
        </p>
        <RefundBalance detail={detail} id={`${amountId}-balance`} />
      </div>
      <div className="field">
        <label htmlFor={addressId}>Refund address</label>
        <TextField.Root
          id={addressId}
          name="address"
          defaultValue={prefill ?? ''}
          required
          autoComplete="off"
          spellCheck={false}
          {...invalidProps(addressId, addressError, `${addressId}-hint`)}
        />
        <p className="hint" id={`${addressId}-hint`}>
          {prefill ? 'The address the customer gave on the checkout page.' : 'The customer’s address, checksummed (0x…).'}
        </p>
        <FieldError id={addressId} message={addressError} />
      </div>
      <ErrorText error={refund.error} />
      <Button type="submit" disabled={refund.isPending}>
        Refund
      </Button>
    </form>
  );
}

function PaymentRefunds({ detail, me }: { detail: PaymentDetail; me: Me }) {
  const { refunds, refundable } = detail.refunds;
  const mayRefund = refundable && can(me.user.role, 'refunds.create');
  if (refunds.length === 0 && !mayRefund) return null;
  return (
    <section aria-labelledby="refunds">
      <h2 id="refunds">Refunds</h2>
      {refunds.length > 0 && (
        <ul className="plain">
          {refunds.map((r) => (
            <li key={r.id} data-testid="payment-refund">
              {exact(r.amount, r.asset)} to <code className="wrap">{r.address}</code>:{' '}
              <span data-testid="payment-refund-status">
                <StateBadge state={r.status} />
              </span>
              {r.failureReason && ` (${r.failureReason})`}
              {r.transactionHash && (
                <>
                  {' '}
                  in <Hash hash={r.transactionHash} url={r.explorerUrl} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {/* A new form (and request key) for each refundable rest: after a refund, the next is another. */}
      {mayRefund && <PaymentRefundForm key={detail.refunds.refundableAmount} detail={detail} />}
    </section>
  );
}

function Summary({ detail }: { detail: PaymentDetail }) {
  const p = detail.payment;
  const meta = Object.entries(p.metadata);
  return (
    <section aria-labelledby="summary">
      <h2 id="summary">Payment</h2>
      <dl>
        <dt>Status</dt>
        <dd>
          <span data-testid="payment-status">
            {/* Its schema sends the status as any string (the list's, as one of six): a badge coloured by the word. */}
            <StateBadge state={p.status} />
          </span>
        </dd>
        {p.partlyPaid && (
          <>
            <dt>Arrived</dt>
            <dd data-testid="partly-paid">
              {partlyPaidText(p.partlyPaid, p.asset, { exact: true })}; {exact(p.partlyPaid.remaining, p.asset)} remains to send.
            </dd>
          </>
        )}
        <dt>Amount</dt>
        <dd data-testid="payment-amount">
          {exact(p.amount, p.currency)}, paid in {p.asset} on {networkName(p.network)}
        </dd>
        <dt>Paid with</dt>
        <dd data-testid="paid-with">{paidWithText(p.paidWith, p.provider)}</dd>
        {p.orderId && (
          <>
            <dt>Order</dt>
            <dd>{p.orderId}</dd>
          </>
        )}
        {p.customerEmail && (
          <>
            <dt>Customer email</dt>
            <dd>{p.customerEmail}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{when(p.createdAt)}</dd>
        {p.completedAt && (
          <>
            <dt>Completed</dt>
            <dd>{when(p.completedAt)}</dd>
          </>
        )}
        {p.settlement && (
          <>
            <dt>Gross, your share, commission</dt>
            <dd>
              {[p.settlement.gross, p.settlement.merchantSettlement, p.settlement.platformCommission]
                .map((v) => (v === null ? '–' : exact(v, p.asset)))
                .join(' · ')}
            </dd>
          </>
        )}
      </dl>
      <h3>Metadata</h3>
      {meta.length === 0 ? (
        <p>None.</p>
      ) : (
        <dl data-testid="metadata">
          {meta.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>
                <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

function PaymentView({ id, me }: { id: string; me: Me }) {
  const detail = useQuery({
    queryKey: ['payment', id],
    queryFn: () => api<PaymentDetail>('GET', `/payments/${id}`),
    // Live while open: a payment moves on its own (credits, confirmations, payouts, deliveries).
    refetchInterval: 3000,
  });
  if (detail.error instanceof ApiError && detail.error.status === 404) {
    return <p>There is no payment {id} in your account.</p>;
  }
  if (detail.error) return <ErrorText error={detail.error} />;
  if (!detail.data) return <PagePending />;
  return (
    <>
      <Summary detail={detail.data} />
      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <Timeline detail={detail.data} me={me} />
      </section>
      <PaymentRefunds detail={detail.data} me={me} />
      <Exceptions detail={detail.data} me={me} />
      <Proof id={id} />
    </>
  );
}

export function Payment() {
  // The route tree is built as a list (router.tsx), so its params are not typed here.
  const params: { id?: string } = useParams({ strict: false });
  const id = params.id ?? '';
  usePageTitle(`Payment ${id}`);
  return (
    <SignedIn>
      {(me) => (
        <>
          <Breadcrumbs trail={[{ to: '/payments', label: 'Payments' }]} current={`Payment ${id}`} />
          <h1>
            Payment <code>{id}</code>
          </h1>
          <PaymentView id={id} me={me} />
        </>
      )}
    </SignedIn>
  );
}
