import { Button, TextField } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import {
  api,
  can,
  formatCryptoAmount,
  networkName,
  parseCrypto,
  type Me,
  type PaymentDetail,
  type PaymentException,
  type PayoutSettings,
  type RefundRequest,
} from '../api';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { ErrorText, FieldError, formValues, invalidProps } from '../ui';
import { StateBadge } from '../values';
import { fieldError } from '../field-errors';
import { checkForm, refundInput } from '../forms';
import { exact, Hash } from './payment-timeline';

// The payment page's refunds, for owners and admins after the step-up dialog: of an exception's
// amount (sent back to the customer), or of the completed payment itself from its merchant's balance.

/** Where a refund goes: the address the customer gave on the checkout page, when they gave one. */
function RefundAddressField({ prefill, error }: { prefill: string | null; error: string | undefined }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Refund address</label>
      <TextField.Root
        id={id}
        name="address"
        defaultValue={prefill ?? ''}
        required
        autoComplete="off"
        spellCheck={false}
        {...invalidProps(id, error, `${id}-hint`)}
      />
      <p className="hint" id={`${id}-hint`}>
        {prefill ? 'The address the customer gave on the checkout page.' : 'The customer’s address, checksummed (0x…).'}
      </p>
      <FieldError id={id} message={error} />
    </div>
  );
}

function RefundForm(props: { paymentId: string; exception: PaymentException; asset: string; prefill: string | null }) {
  const { paymentId, exception, asset, prefill } = props;
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
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
      <RefundAddressField prefill={prefill} error={addressError} />
      <ErrorText error={refund.error} />
      <Button type="submit" disabled={refund.isPending}>
        Refund {exact(exception.amount, asset)}
      </Button>
    </form>
  );
}

export function Exceptions({ detail, me }: { detail: PaymentDetail; me: Me }) {
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
      <RefundAddressField prefill={prefill} error={addressError} />
      <ErrorText error={refund.error} />
      <Button type="submit" disabled={refund.isPending}>
        Refund
      </Button>
    </form>
  );
}

export function PaymentRefunds({ detail, me }: { detail: PaymentDetail; me: Me }) {
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
