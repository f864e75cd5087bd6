import { Button, Dialog } from '@radix-ui/themes';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { api, ApiError, type Me } from './api';
import { CalledOff, ErrorText, Field, formValues, Notice } from './ui';

// Actions that move money, reveal a secret or change who may act ask who the person is again: the
// server's step-up (the password, and the authenticator's code when two-factor is on; an owner must
// have it on), which then counts for 10 minutes of the session. One dialog asks for both at once and,
// for an action that cannot be undone, first says what will happen; the action runs when it closes.
// Should the server still answer that a step-up is missing (it ran out meanwhile), the dialog asks
// again and the action runs once more.

/** What the dialog says of a sensitive action. */
export interface Sensitive {
  /** The action, as "To …, confirm it is you" finishes it: "rotate the live key". */
  what: string;
  /** One that cannot be undone: the dialog opens every time, says what will happen and asks. */
  confirm?: { title: string; description: string; label: string };
  /** False when the server asks no step-up for this one (a key with fewer scopes): only its refusal then asks. */
  stepUp?: boolean;
}

interface Asking extends Sensitive {
  me: Me;
  /** Whether the password (and code) are asked this time, or only the confirmation. */
  stepUpNow: boolean;
  /** Asked again because the server refused: the last step-up ran out. */
  lapsed: boolean;
  /** Where focus goes back when the dialog closes (it has no trigger of its own). */
  returnTo: HTMLElement | null;
  done: () => void;
  cancel: () => void;
}

type RunSensitive = <T>(action: () => Promise<T>, sensitive: Sensitive) => Promise<T>;

const StepUpContext = createContext<RunSensitive | null>(null);

/**
 * Focus back on what opened the dialog, as a dialog with a trigger does: at once, or, for a button
 * disabled while its action runs, once it is enabled again, unless something else (a secret's
 * dialog) has taken focus by then.
 */
function giveFocusBack(to: HTMLElement | null) {
  if (!to?.isConnected) return;
  if (!to.matches(':disabled')) return to.focus();
  const observer = new MutationObserver(() => {
    if (to.matches(':disabled')) return;
    observer.disconnect();
    if (to.isConnected && (document.activeElement === null || document.activeElement === document.body)) to.focus();
  });
  observer.observe(to, { attributes: true, attributeFilter: ['disabled'] });
  setTimeout(() => observer.disconnect(), 60_000);
}

const meQuery = { queryKey: ['me'], queryFn: () => api<Me>('GET', '/me') };
const mustTurnOnTwoFactor = (me: Me) => me.user.role === 'owner' && !me.twoFactor;
const needsStepUp = (me: Me) => !me.steppedUp || mustTurnOnTwoFactor(me);

/** The one step-up dialog, for every page under it. */
export function StepUpProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<Asking | null>(null);
  const run = useCallback<RunSensitive>(
    async (action, sensitive) => {
      const ask = (me: Me, stepUpNow: boolean, lapsed: boolean) =>
        new Promise<void>((resolve, reject) => {
          const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          setAsking({
            ...sensitive,
            ...(lapsed ? { confirm: undefined } : {}),
            me,
            stepUpNow,
            lapsed,
            returnTo,
            done: () => {
              setAsking(null);
              resolve();
            },
            cancel: () => {
              setAsking(null);
              reject(new CalledOff());
            },
          });
        });
      const me = await queryClient.ensureQueryData(meQuery);
      const stepUpNow = sensitive.stepUp !== false && needsStepUp(me);
      if (sensitive.confirm || stepUpNow) await ask(me, stepUpNow, false);
      try {
        return await action();
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 403)) throw error;
        // A refusal for the role, not the step-up, stays the answer.
        const now = await queryClient.fetchQuery({ ...meQuery, staleTime: 0 });
        if (!needsStepUp(now)) throw error;
        await ask(now, true, true);
        return action();
      }
    },
    [queryClient],
  );
  return (
    <StepUpContext.Provider value={run}>
      {children}
      <Dialog.Root open={asking !== null} onOpenChange={(open) => !open && asking?.cancel()}>
        {asking && <StepUpDialog asking={asking} />}
      </Dialog.Root>
    </StepUpContext.Provider>
  );
}

function StepUpDialog({ asking }: { asking: Asking }) {
  const queryClient = useQueryClient();
  const { me, what, confirm } = asking;
  const stepUp = useMutation({
    mutationFn: (body: Record<string, string>) => api('POST', '/step-up', body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      asking.done();
    },
  });
  const intro = asking.lapsed
    ? `Your last confirmation ran out: to ${what}, confirm it is you again.`
    : `To ${what}, confirm it is you. It then counts for 10 minutes.`;
  return (
    <Dialog.Content
      maxWidth="32rem"
      onCloseAutoFocus={(e) => {
        e.preventDefault();
        giveFocusBack(asking.returnTo);
      }}
    >
      <Dialog.Title>{confirm?.title ?? 'Confirm it is you'}</Dialog.Title>
      <Dialog.Description>{confirm?.description ?? intro}</Dialog.Description>
      {asking.stepUpNow && mustTurnOnTwoFactor(me) ? (
        <>
          <Notice>
            Owners turn on two-factor authentication before they {what}.{' '}
            <Link to="/security" onClick={asking.cancel}>
              Turn it on
            </Link>
          </Notice>
          <div className="actions">
            <Button type="button" variant="soft" color="gray" onClick={asking.cancel}>
              Cancel
            </Button>
          </div>
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (asking.stepUpNow) stepUp.mutate(formValues(e.currentTarget));
            else asking.done();
          }}
        >
          {asking.stepUpNow && (
            <>
              {confirm && <p>{intro}</p>}
              <Field label="Your password" name="password" type="password" autoComplete="current-password" />
              {me.twoFactor && <Field label="Code from your authenticator app" name="code" autoComplete="one-time-code" />}
            </>
          )}
          <ErrorText error={stepUp.error} />
          <div className="actions">
            <Button type="submit" loading={stepUp.isPending}>
              {confirm?.label ?? 'Confirm it is you'}
            </Button>
            <Button type="button" variant="soft" color="gray" onClick={asking.cancel}>
              Cancel
            </Button>
          </div>
        </form>
      )}
    </Dialog.Content>
  );
}

/**
 * Runs a sensitive action through the step-up dialog: `run(() => api(…), { what, confirm? })` answers
 * the action's answer, or rejects with CalledOff when the person cancels (nothing was sent).
 */
export function useStepUp(): RunSensitive {
  const run = useContext(StepUpContext);
  if (!run) throw new Error('useStepUp needs a StepUpProvider above it.');
  return run;
}
