import { Button } from '@radix-ui/themes';
import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api } from '../api';
import { ErrorText, Field, formValues, usePageTitle } from '../ui';

// A forgotten password: the address to mail a one-time link to, and the page that link
// opens. The answer to the first never says whether the address has an account; the link only opens
// the second page, whose button spends it, so a mail scanner that follows links cannot use it up.

export function ForgotPassword() {
  usePageTitle('Forgot your password');
  const forgot = useMutation({ mutationFn: (body: Record<string, string>) => api<{ ok: true }>('POST', '/forgot-password', body) });
  return (
    <>
      <h1>Forgot your password</h1>
      {forgot.isSuccess ? (
        <p role="status">
          If this address has an account, we have sent it a link to choose a new password. The link works once, for one hour.
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            forgot.mutate(formValues(e.currentTarget));
          }}
        >
          <p>Give the email address you sign in with, and we mail you a link to choose a new password.</p>
          <Field error={forgot.error} label="Email" name="email" type="email" autoComplete="username" />
          <ErrorText error={forgot.error} />
          <Button type="submit" disabled={forgot.isPending}>
            Mail me a link
          </Button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </>
  );
}

export function ResetPassword() {
  usePageTitle('Choose a new password');
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const reset = useMutation({
    mutationFn: (password: string) => api<{ ok: true }>('POST', '/reset-password', { token, password }),
  });
  return (
    <>
      <h1>Choose a new password</h1>
      {reset.isSuccess ? (
        <p role="status">
          Your new password is in force, and every session of yours was signed out. <Link to="/sign-in">Sign in</Link>
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            reset.mutate(formValues(e.currentTarget).password ?? '');
          }}
        >
          <Field
            error={reset.error}
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={12}
            hint="At least 12 characters."
          />
          <ErrorText error={reset.error} />
          <Button type="submit" disabled={reset.isPending || !token}>
            Set the new password
          </Button>
        </form>
      )}
    </>
  );
}
