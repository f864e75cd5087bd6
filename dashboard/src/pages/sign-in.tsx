import { Button } from '@radix-ui/themes';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { api, ApiError, type SignInRequest } from '../api';
import { ErrorText, Field, formValues, usePageTitle } from '../ui';

export function SignIn() {
  usePageTitle('Sign in');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Asked for once the password is known right and the account has a second factor.
  const [askCode, setAskCode] = useState(false);
  useEffect(() => void import('../forms'), []);
  const signIn = useMutation({
    mutationFn: async (values: Record<string, string>) => {
      // The form's check (forms.ts), fetched once the page is painted: not on its first paint's way.
      const { checkForm, signInInput } = await import('../forms');
      const body: SignInRequest = checkForm(signInInput, values);
      return api<{ ok: true }>('POST', '/sign-in', body);
    },
    onError: (e) => {
      if (e instanceof ApiError && e.details.some((d) => d.path === 'code')) setAskCode(true);
    },
    onSuccess: async () => {
      queryClient.clear();
      await navigate({ to: '/' });
    },
  });
  return (
    <>
      <h1>Sign in</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          signIn.mutate(formValues(e.currentTarget));
        }}
      >
        <Field error={signIn.error} label="Email" name="email" type="email" autoComplete="username" />
        <Field error={signIn.error} label="Password" name="password" type="password" autoComplete="current-password" />
        {askCode && (
          <Field
            error={signIn.error}
            label="Code from your authenticator app"
            name="code"
            autoComplete="one-time-code"
            hint="The 6 digits your app shows now, or one of your recovery codes."
          />
        )}
        <ErrorText error={signIn.error} />
        <Button type="submit" disabled={signIn.isPending}>
          Sign in
        </Button>
      </form>
      <p>
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p>
        New here? <Link to="/sign-up">Create an account</Link>
      </p>
    </>
  );
}
