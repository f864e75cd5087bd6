import { Button } from '@radix-ui/themes';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api } from '../api';
import { Confirm, ErrorText, Field, formValues, Page } from '../ui';
import { CopyButton } from '../values';

// The person's own second factor: TOTP enrolment (a QR code of the otpauth:// URI, and the secret to
// type instead), its confirmation with a first code, the recovery codes shown once, turning it off.

function Enrol() {
  const queryClient = useQueryClient();
  const enrol = useMutation({ mutationFn: () => api<{ secret: string; uri: string; qrSvg: string }>('POST', '/two-factor/enroll') });
  const confirm = useMutation({
    mutationFn: (code: string) => api<{ recoveryCodes: string[] }>('POST', '/two-factor/confirm', { code }),
  });
  if (confirm.isSuccess) {
    return (
      <section aria-labelledby="recovery">
        <h2 id="recovery">Your recovery codes</h2>
        <p role="status">
          Two-factor authentication is on. Keep these codes somewhere safe: each signs you in once without your phone. They are shown only
          this once.
        </p>
        <ul className="recovery" data-testid="recovery-codes">
          {confirm.data.recoveryCodes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ul>
        <div className="actions">
          <CopyButton value={confirm.data.recoveryCodes.join('\n')} what="the recovery codes" unnamed />
          <Button type="button" onClick={() => void queryClient.invalidateQueries({ queryKey: ['me'] })}>
            I have saved them
          </Button>
        </div>
      </section>
    );
  }
  if (!enrol.data) {
    return (
      <>
        <p>
          Two-factor authentication is off. With it on, signing in and confirming who you are also ask for a code from an app on your phone.
        </p>
        <ErrorText error={enrol.error} />
        <Button type="button" onClick={() => enrol.mutate()} disabled={enrol.isPending}>
          Turn on two-factor authentication
        </Button>
      </>
    );
  }
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        confirm.mutate(formValues(e.currentTarget).code ?? '');
      }}
    >
      <p>Scan this code with your authenticator app, or type the key below into it.</p>
      <img
        className="qr"
        alt="QR code of your authenticator key"
        src={`data:image/svg+xml;base64,${btoa(enrol.data.qrSvg)}`}
        width={200}
        height={200}
      />
      <p>
        Key: <code data-testid="totp-secret">{enrol.data.secret}</code>
      </p>
      <Field error={confirm.error} label="The 6-digit code your app shows" name="code" autoComplete="one-time-code" />
      <ErrorText error={confirm.error} />
      <Button type="submit" disabled={confirm.isPending}>
        Confirm and turn on
      </Button>
    </form>
  );
}

function Disable() {
  const queryClient = useQueryClient();
  const [done, setDone] = useState(false);
  const disable = useMutation({
    mutationFn: (body: Record<string, string>) => api('POST', '/two-factor/disable', body),
    onSuccess: () => {
      setDone(true);
      void queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  if (done) return <p role="status">Two-factor authentication is off.</p>;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        disable.mutate(formValues(e.currentTarget));
      }}
    >
      <p>Two-factor authentication is on.</p>
      <Field error={disable.error} label="Your password" name="password" type="password" autoComplete="current-password" />
      <Field error={disable.error} label="Code from your authenticator app" name="code" autoComplete="one-time-code" />
      <ErrorText error={disable.error} />
      <Button type="submit" variant="soft" disabled={disable.isPending}>
        Turn off two-factor authentication
      </Button>
    </form>
  );
}

function ChangePassword() {
  const [changed, setChanged] = useState<number | null>(null);
  const change = useMutation({
    mutationFn: (body: Record<string, string>) => api<{ sessionsEnded: number }>('POST', '/password', body),
    onSuccess: (data) => setChanged(data.sessionsEnded),
  });
  return (
    <section aria-labelledby="password">
      <h2 id="password">Password</h2>
      {changed !== null ? (
        <p role="status">
          Your password is changed. {changed === 1 ? 'One other session was' : `${changed} other sessions were`} signed out; this one stays.
        </p>
      ) : (
        <form
          aria-labelledby="password"
          onSubmit={(e) => {
            e.preventDefault();
            change.mutate(formValues(e.currentTarget));
          }}
        >
          <Field error={change.error} label="Current password" name="currentPassword" type="password" autoComplete="current-password" />
          <Field
            error={change.error}
            label="New password"
            name="newPassword"
            type="password"
            autoComplete="new-password"
            minLength={12}
            hint="At least 12 characters. Your other sessions are signed out, and you are told by mail."
          />
          <ErrorText error={change.error} />
          <Button type="submit" disabled={change.isPending}>
            Change the password
          </Button>
        </form>
      )}
    </section>
  );
}

function SignOutEverywhere() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => api('POST', '/sign-out-everywhere'),
    onSuccess: async () => {
      queryClient.clear();
      await navigate({ to: '/sign-in' });
    },
  });
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">Sessions</h2>
      <p>Lost a device, or signed in on a computer that is not yours? End every session of yours, this one too.</p>
      <ErrorText error={signOut.error} />
      <Confirm
        label="Sign out everywhere"
        title="Sign out everywhere?"
        description="Every session of yours ends at once, on every device; you sign in again here."
        confirmLabel="Sign out everywhere"
        onConfirm={() => signOut.mutate()}
        disabled={signOut.isPending}
      />
    </section>
  );
}

export function Security() {
  return (
    <Page title="Account security">
      {(me) => (
        <>
          <section aria-labelledby="two-factor">
            <h2 id="two-factor">Two-factor authentication</h2>
            {me.twoFactor ? <Disable /> : <Enrol />}
          </section>
          <ChangePassword />
          <SignOutEverywhere />
        </>
      )}
    </Page>
  );
}
