import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, signUpInput, type SignUpRequest } from '../api';
import { checkForm } from '../field-errors';
import { ErrorText, Field, formValues, usePageTitle } from '../ui';

export function SignUp() {
  usePageTitle('Create an account');
  const signUp = useMutation({
    mutationFn: (values: Record<string, string>) => {
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
        <button type="submit" disabled={signUp.isPending}>
          Create account
        </button>
      </form>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </>
  );
}
