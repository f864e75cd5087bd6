import { Button } from '@radix-ui/themes';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api } from '../api';
import { ErrorText, Field, formValues, PagePending, usePageTitle } from '../ui';

// The invitation mail's link: who invites to what, and a password to join with. The token is sent
// in a POST body, never as part of an API URL.
export function AcceptInvitation() {
  usePageTitle('Join a team');
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const preview = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api<{ merchantName: string; email: string; role: string }>('POST', '/invitations/preview', { token }),
    retry: false,
  });
  const accept = useMutation({
    mutationFn: (password: string) => api<{ email: string }>('POST', '/invitations/accept', { token, password }),
  });
  return (
    <>
      <h1>Join a team</h1>
      {accept.isSuccess ? (
        <p role="status">
          You have joined. <Link to="/sign-in">Sign in</Link> as {accept.data.email}.
        </p>
      ) : preview.isPending ? (
        <PagePending />
      ) : preview.error ? (
        <ErrorText error={preview.error} />
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            accept.mutate(formValues(e.currentTarget).password ?? '');
          }}
        >
          <p>
            You are invited to <strong>{preview.data.merchantName}</strong> as {preview.data.role}, with the address {preview.data.email}.
          </p>
          <Field
            error={accept.error}
            label="Choose a password"
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={12}
            hint="At least 12 characters."
          />
          <ErrorText error={accept.error} />
          <Button type="submit" disabled={accept.isPending}>
            Join {preview.data.merchantName}
          </Button>
        </form>
      )}
    </>
  );
}
