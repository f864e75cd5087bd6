import { Button, Table, TextField } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, type FormEvent, type ReactNode } from 'react';
import {
  amountText,
  api,
  can,
  formatCryptoAmount,
  networkName,
  parseCrypto,
  type Me,
  type NextPayout,
  type PayoutSchedule,
  type PayoutSettings,
  type PayoutSettingsRequest,
} from '../api';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { fieldError } from '../field-errors';
import { checkForm, payoutSettingsInput } from '../forms';
import { ErrorText, FieldError, formValues, invalidProps, Notice, PagePending } from '../ui';
import { CopyButton } from '../values';
import { ScrollTable } from '../table';

// The Money page's balance (docs/settlement.md): what the merchant is owed per network and asset,
// when it is paid out and the least a payout pays, and where to top it up for refunds. Every role
// reads; owners and admins change the schedule and minimum after confirming it is them (the step-up
// dialog), and ask for a payout now. When the next payout goes is the API's (src/domain/next-payout.ts).

// Settlement runs keep UTC days and weeks (docs/settlement.md): their times are shown in UTC, whatever the browser's zone.
const utcLong = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const utcShort = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

/** PAYOUT_INTERVAL_SECONDS in words: "30 seconds", "5 minutes". */
function every(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'an hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'a minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? 'a second' : `${seconds} seconds`;
}

const SCHEDULES: { value: PayoutSchedule; label: string }[] = [
  { value: 'instant', label: 'Every settlement run' },
  { value: 'daily', label: 'Daily, from 00:00 UTC' },
  { value: 'weekly', label: 'Weekly, from Monday 00:00 UTC' },
  { value: 'manual', label: 'Only when asked for' },
];
const scheduleLabel = (schedule: PayoutSchedule) => SCHEDULES.find((s) => s.value === schedule)?.label ?? schedule;

/** When the next payout goes, in words (the API's nextPayoutAt: src/domain/next-payout.ts). */
function NextPayoutText({ settings }: { settings: PayoutSettings }) {
  const minimum = parseCrypto(settings.minimum) > 0n ? `, once it reaches your minimum of ${amountText(settings.minimum)}` : '';
  if (settings.nextPayoutAt === null) {
    return <>Only when asked for (“Pay out now”): the next settlement run then pays what is available, whatever the minimum.</>;
  }
  if (settings.payoutDue && settings.payoutRequested) {
    return (
      <>
        At the next settlement run, within {every(settings.payoutIntervalSeconds)}: a payout was asked for, so what is available in each
        asset goes to your wallet, whatever the schedule and the minimum.
      </>
    );
  }
  if (settings.payoutDue) {
    return (
      <>
        At the next settlement run, within {every(settings.payoutIntervalSeconds)}: what is available in each asset goes to your wallet
        {minimum}.
      </>
    );
  }
  return (
    <>
      On <time dateTime={settings.nextPayoutAt}>{utcLong.format(new Date(settings.nextPayoutAt))} UTC</time>, the first settlement run of
      that {settings.schedule === 'weekly' ? 'week' : 'day'}: what is available in each asset goes to your wallet{minimum}.
    </>
  );
}

/** A balance's next payout, for a table cell. */
function nextPayoutCell(next: NextPayout): ReactNode {
  if (next.nextPayoutAt === null) return 'When asked for';
  if (next.payoutDue) return 'Next run';
  return <time dateTime={next.nextPayoutAt}>{utcShort.format(new Date(next.nextPayoutAt))} UTC</time>;
}

function Balances({ settings }: { settings: PayoutSettings }) {
  return (
    <section aria-labelledby="balances">
      <h2 id="balances">Balance</h2>
      {settings.balances.length === 0 ? (
        <p>No balance yet: each completed payment’s net is credited here, then paid out.</p>
      ) : (
        <ScrollTable
          label="Balances, scrollable"
          head={['Network', 'Asset', 'Pending', 'Available', 'Reserved', 'On its way', 'Next payout']}
        >
          {settings.balances.map((b) => (
            <Table.Row key={`${b.network}-${b.asset}`} data-testid="balance">
              <Table.Cell>{networkName(b.network)}</Table.Cell>
              <Table.Cell>{b.asset}</Table.Cell>
              <Table.Cell>{amountText(b.pending)}</Table.Cell>
              <Table.Cell>{amountText(b.available)}</Table.Cell>
              <Table.Cell>{amountText(b.reserved)}</Table.Cell>
              <Table.Cell>{amountText(b.outgoing)}</Table.Cell>
              <Table.Cell>{nextPayoutCell(b)}</Table.Cell>
            </Table.Row>
          ))}
        </ScrollTable>
      )}
      <p className="hint">
        Pending: completed payments still in their hold. Available: what the next payout pays, and what refunds draw on first. Reserved:
        kept back for refunds. On its way: payouts and refunds sent, not yet confirmed on chain.
      </p>
    </section>
  );
}

function ChangeSchedule({ settings }: { settings: PayoutSettings }) {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const toast = useToast();
  const ids = { schedule: useId(), minimum: useId() };
  const change = useMutation({
    // Checked with the route's own schema first: a form it would refuse asks for no step-up.
    mutationFn: (values: Record<string, string>) => {
      const body: PayoutSettingsRequest = checkForm(payoutSettingsInput, values);
      return stepUp(() => api<PayoutSettings>('POST', '/payout-settings', body), { what: 'change when payouts go' });
    },
    onSuccess: (data) => {
      queryClient.setQueryData(['payout-settings'], data);
      toast('Payout schedule saved.');
    },
  });
  return (
    // A new key per saved setting: the uncontrolled fields show what is saved after each change.
    <form
      aria-label="Change when payouts go"
      key={`${settings.schedule}|${settings.minimum}`}
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        change.mutate(formValues(e.currentTarget));
      }}
    >
      <div className="field">
        <label htmlFor={ids.schedule}>Payout schedule</label>
        <select id={ids.schedule} name="schedule" defaultValue={settings.schedule}>
          {SCHEDULES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.minimum}>Minimum payout</label>
        <TextField.Root
          id={ids.minimum}
          name="minimum"
          inputMode="decimal"
          required
          autoComplete="off"
          defaultValue={formatCryptoAmount(parseCrypto(settings.minimum))}
          {...invalidProps(ids.minimum, fieldError(change.error, 'minimum'), `${ids.minimum}-hint`)}
        />
        <p className="hint" id={`${ids.minimum}-hint`}>
          The least a payout on schedule pays, in each asset: a smaller balance waits for more. 0 pays any amount. A payout you ask for pays
          whatever is available.
        </p>
        <FieldError id={ids.minimum} message={fieldError(change.error, 'minimum')} />
      </div>
      <ErrorText error={change.error} />
      <Button type="submit" disabled={change.isPending}>
        Save the schedule
      </Button>
    </form>
  );
}

function PayOutNow() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const request = useMutation({
    mutationFn: () => api<PayoutSettings>('POST', '/payout-settings/request'),
    onSuccess: (data) => {
      queryClient.setQueryData(['payout-settings'], data);
      toast('Payout asked for: the next settlement run pays what is available, whatever the schedule and the minimum.');
    },
  });
  return (
    <div className="field">
      <Button type="button" variant="soft" onClick={() => request.mutate()} disabled={request.isPending}>
        Pay out now
      </Button>
      <ErrorText error={request.error} />
    </div>
  );
}

function Schedule({ me, settings }: { me: Me; settings: PayoutSettings }) {
  const mayChange = can(me.user.role, 'wallets.manage');
  return (
    <section aria-labelledby="schedule">
      <h2 id="schedule">When payouts go</h2>
      <dl>
        <dt>Schedule</dt>
        <dd data-testid="payout-schedule">{scheduleLabel(settings.schedule)}</dd>
        <dt>Minimum</dt>
        <dd data-testid="payout-minimum">{amountText(settings.minimum)} (USDC or USDT)</dd>
        <dt>Next payout</dt>
        <dd data-testid="next-payout">
          <NextPayoutText settings={settings} />
        </dd>
      </dl>
      {!mayChange ? (
        <Notice>Owners and admins change the schedule and ask for a payout.</Notice>
      ) : (
        <>
          <PayOutNow />
          <ChangeSchedule settings={settings} />
        </>
      )}
    </section>
  );
}

function TopUps({ settings }: { settings: PayoutSettings }) {
  return (
    <section aria-labelledby="top-up">
      <h2 id="top-up">Top up your balance</h2>
      <p>
        USDC or USDT sent here is credited to your available balance once confirmed, for refunds. Send on the network named beside the
        address only.
      </p>
      {settings.topUpAddresses.length === 0 ? (
        <p>No top-up address: no network here takes deposits yet.</p>
      ) : (
        <ul className="plain">
          {settings.topUpAddresses.map((t) => (
            <li key={t.network} data-testid="top-up">
              <strong>{networkName(t.network)}</strong>: <code className="wrap">{t.address}</code>{' '}
              <CopyButton value={t.address} what={`the ${networkName(t.network)} top-up address`} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The balance, when it is paid out, and where to top it up: read by every role. */
export function Balance({ me }: { me: Me }) {
  const settings = useQuery({ queryKey: ['payout-settings'], queryFn: () => api<PayoutSettings>('GET', '/payout-settings') });
  if (settings.error) return <ErrorText error={settings.error} />;
  if (!settings.data) return <PagePending />;
  return (
    <>
      <Balances settings={settings.data} />
      <Schedule me={me} settings={settings.data} />
      <TopUps settings={settings.data} />
    </>
  );
}
