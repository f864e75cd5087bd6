import * as Dialog from '@radix-ui/react-dialog';
import { useQuery } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { useEffect, useId, type ReactNode } from 'react';
import { api, ApiError, type Me } from './api';

/** Each page names itself in the tab as well as in its heading. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Dashboard`;
  }, [title]);
}

export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: () => api<Me>('GET', '/me') });
}

/** The signed-in merchant's pages: without a session (401) the visitor is sent to sign in. */
export function SignedIn({ children }: { children: (me: Me) => ReactNode }) {
  const me = useMe();
  if (me.isPending) return <p role="status">Loading…</p>;
  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to="/sign-in" />;
  if (me.error) return <ErrorText error={me.error} />;
  return <>{children(me.data)}</>;
}

export function Field(props: { label: string; name: string; type?: string; autoComplete?: string; hint?: string; minLength?: number }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete}
        minLength={props.minLength}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        required
      />
      {props.hint && (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error instanceof Error ? error.message : 'Something went wrong.'}
    </p>
  );
}

/** A secret shown once (a key, a signing secret, a security code): no other answer carries it again. */
export function ShownOnce(props: { title: string; value: string | null; onClose: () => void }) {
  return (
    <Dialog.Root open={props.value !== null} onOpenChange={(open) => !open && props.onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>{props.title}</Dialog.Title>
          <Dialog.Description>Copy it now and keep it somewhere safe: it is shown only this once.</Dialog.Description>
          <p>
            <code className="secret" data-testid="secret">
              {props.value}
            </code>
          </p>
          <Dialog.Close asChild>
            <button type="button">I have saved it</button>
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

export const formValues = (form: HTMLFormElement) => Object.fromEntries(new FormData(form).entries()) as Record<string, string>;
