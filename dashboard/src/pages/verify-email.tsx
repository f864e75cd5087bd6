import { Button } from '@radix-ui/themes';
import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api } from '../api';
import { ErrorText, usePageTitle } from '../ui';

// The link in the mail only opens this page; the button confirms, so a mail scanner that follows
// links cannot use the token up.
export function VerifyEmail() {
  usePageTitle('Confirm your email');
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const verify = useMutation({ mutationFn: () => api<{ ok: true }>('POST', '/verify-email', { token }) });
  return (
    <>
      <h1>Confirm your email</h1>
      {verify.isSuccess ? (
        <p role="status">
          Your email address is confirmed. <Link to="/sign-in">Sign in</Link>
        </p>
      ) : (
        <>
          <ErrorText error={verify.error} />
          <Button type="button" onClick={() => verify.mutate()} disabled={verify.isPending || !token}>
            Confirm my email address
          </Button>
        </>
      )}
    </>
  );
}
