import { Button, Table } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, can, networkName, type Me, type PaymentDetail, type PaymentProof, type TimelineEntry, type WebhookDelivery } from '../api';
import { useToast } from '../toast';
import { formatAmount } from '../format';
import { ErrorText } from '../ui';
import { When } from '../values';
import { ScrollTable } from '../table';

// The payment page's record of what happened: its timeline (each webhook with its attempts, and a
// resend for the roles that manage webhooks), and the chain's own word on the deposit address.

export const when = (iso: string) => <When at={iso} />;
// This page shows every decimal of the stablecoin: it is where a merchant checks an amount to the unit.
export const exact = (value: string, unit: string) => formatAmount(value, unit, { exact: true });

export function Hash({ hash, url }: { hash: string; url: string | null }) {
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

export function Timeline({ detail, me }: { detail: PaymentDetail; me: Me }) {
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

export function Proof({ id }: { id: string }) {
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
      {p && !p.depositAddress && (
        // Nothing was asked of the chain: no address, so no balance, credits or transfers to show.
        <p data-testid="proof-none">
          {p.verification === 'provider'
            ? `The provider's word proves this payment: ${networkName(p.network)} has no verifier here, so there is no deposit address and nothing on chain to read.`
            : 'No deposit address yet: the customer has not started paying.'}
        </p>
      )}
      {p?.depositAddress && (
        <>
          <dl>
            <dt>Deposit address</dt>
            <dd>
              <code className="wrap">{p.depositAddress}</code>
            </dd>
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
