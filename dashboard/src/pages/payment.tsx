import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { api, ApiError, networkName, paidWithText, type Me, type PaymentDetail } from '../api';
import { partlyPaidText } from '../format';
import { Breadcrumbs, ErrorText, PagePending, SignedIn, usePageTitle } from '../ui';
import { StateBadge } from '../values';
import { Exceptions, PaymentRefunds } from './payment-refunds';
import { exact, Proof, Timeline, when } from './payment-timeline';

// One payment, as it happens. The page reads it every 3 s while it is open (the timeline, exceptions
// and deliveries come from Postgres alone), and the chain proof, which reads the chain, every 15 s.
// Every role reads; resends are for the roles that manage webhooks; refunds (of an exception, or of
// the completed payment itself) for owners and admins, after the step-up dialog.

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
