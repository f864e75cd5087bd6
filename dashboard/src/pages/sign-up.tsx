import { Button } from '@radix-ui/themes';
import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect } from 'react';
import { api, type SignUpRequest } from '../api';
import { ErrorText, Field, formValues, usePageTitle } from '../ui';

export function SignUp() {
  usePageTitle('Create an account');
  useEffect(() => void import('../forms'), []);
  const signUp = useMutation({
    mutationFn: async (values: Record<string, string>) => {
      // The form's check (forms.ts), fetched once the page is painted: not on its first paint's way.
      const { checkForm, signUpInput } = await import('../forms');
      const body: SignUpRequest = checkForm(signUpInput, values);
      return api<{ ok: true }>('POST', '/sign-up', body);
    },
  });
  if (signUp.isSuccess) {
    return (
      <>
        <h1>Check your email</h1>
        <p role="status">We sent a link to confirm your email address. Open it to continue.</p>
      </>
    );
  }
  return (
    <>
      <h1>Create an account</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          signUp.mutate(formValues(e.currentTarget));
        }}
      >
        <Field label="Business name" name="businessName" autoComplete="organization" error={signUp.error} />
        <Field label="Email" name="email" type="email" autoComplete="email" error={signUp.error} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={12}
          hint="At least 12 characters."
          error={signUp.error}
        />
        <ErrorText error={signUp.error} />
        <Button type="submit" disabled={signUp.isPending}>
          Create account
        </Button>
      </form>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </>
  );
}
