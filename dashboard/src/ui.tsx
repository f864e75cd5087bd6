import { AlertDialog, Button, Callout, Card, Dialog, Skeleton, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate } from '@tanstack/react-router';
import { useEffect, useId, type ReactNode } from 'react';
import { api, can, ApiError, type Me } from './api';
import { fieldError } from './field-errors';
import { CopyButton } from './values';

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
  if (me.isPending) return <PagePending />;
  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to="/sign-in" />;
  if (me.error) return <ErrorText error={me.error} />;
  return <>{children(me.data)}</>;
}

/** Where a page sits under its section: the section's link, then the page itself (current). */
export interface Crumb {
  to: '/developers' | '/payments' | '/links' | '/money';
  label: string;
}

export function Breadcrumbs({ trail, current }: { trail: Crumb[]; current: ReactNode }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        {trail.map((c) => (
          <li key={c.to}>
            {/* Exact: a crumb above the page is not the page (the router would mark it, being the path's start). */}
            <Link to={c.to} activeOptions={{ exact: true }}>
              {c.label}
            </Link>
          </li>
        ))}
        <li aria-current="page">{current}</li>
      </ol>
    </nav>
  );
}

/**
 * A signed-in page: its name in the tab and as its heading, under breadcrumbs when it sits inside a
 * section (`parent`, the last crumb `crumb` or else the title); its content may read who is signed in.
 */
export function Page(props: { title: string; parent?: Crumb | undefined; crumb?: string; children: ReactNode | ((me: Me) => ReactNode) }) {
  usePageTitle(props.title);
  return (
    <SignedIn>
      {(me) => (
        <>
          {props.parent && <Breadcrumbs trail={[props.parent]} current={props.crumb ?? props.title} />}
          <h1>{props.title}</h1>
          {typeof props.children === 'function' ? props.children(me) : props.children}
        </>
      )}
    </SignedIn>
  );
}

/**
 * A page under Developers: a viewer (who never sees keys, secrets or what they send) is told so
 * instead of the content.
 */
export function DeveloperPage(props: { title: string; intro?: string; forbidden: string; children: ReactNode }) {
  return (
    <Page title={props.title} parent={{ to: '/developers', label: 'Developers' }}>
      {(me) => (
        <>
          {props.intro && <p>{props.intro}</p>}
          {can(me.user.role, 'developers.read') ? props.children : <Notice>{props.forbidden}</Notice>}
        </>
      )}
    </Page>
  );
}

export function Field(props: {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password' | 'url';
  autoComplete?: string;
  hint?: string;
  minLength?: number;
  /** The form's last error: the server's word on this field, if any, is shown beside it. */
  error?: unknown;
}) {
  const id = useId();
  const invalid = fieldError(props.error, props.name);
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <TextField.Root
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete}
        minLength={props.minLength}
        {...invalidProps(id, invalid, props.hint ? `${id}-hint` : undefined)}
        required
      />
      {props.hint && (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldError id={id} message={invalid} />
    </div>
  );
}

/** An input's link to its error: marked invalid, described by its hint and then the error. */
export function invalidProps(id: string, message: string | undefined, hintId?: string) {
  const describedBy = [hintId, message ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return { 'aria-invalid': message ? true : undefined, 'aria-describedby': describedBy || undefined };
}

/** The server's word on a field, beside it; `id` is the input's (its text is `${id}-error`). */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="error field-error" id={`${id}-error`} data-testid="field-error">
      {message}
    </p>
  );
}

/** An action the person called off (a dialog cancelled): nothing was done, so nothing is said. */
export class CalledOff extends Error {
  constructor() {
    super('Called off.');
  }
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error || error instanceof CalledOff) return null;
  return (
    <Callout.Root color="red" highContrast role="alert" className="callout">
      <Callout.Text>{error instanceof Error ? error.message : 'Something went wrong.'}</Callout.Text>
    </Callout.Root>
  );
}

/** Something the person should know before acting (a role's limits, a missing second factor). */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <Callout.Root color="gray" highContrast variant="surface" className="callout">
      <Callout.Text>{children}</Callout.Text>
    </Callout.Root>
  );
}

/** A secret shown once (a key, a signing secret, a security code): no other answer carries it again. */
export function ShownOnce(props: { title: string; value: string | null; onClose: () => void }) {
  return (
    <Dialog.Root open={props.value !== null} onOpenChange={(open) => !open && props.onClose()}>
      <Dialog.Content maxWidth="32rem">
        <Dialog.Title>{props.title}</Dialog.Title>
        <Dialog.Description>Copy it now and keep it somewhere safe: it is shown only this once.</Dialog.Description>
        <p>
          <code className="secret" data-testid="secret">
            {props.value}
          </code>
        </p>
        <div className="actions">
          <CopyButton value={props.value ?? ''} what="the secret" unnamed />
          <Dialog.Close>
            <Button type="button">I have saved it</Button>
          </Dialog.Close>
        </div>
      </Dialog.Content>
    </Dialog.Root>
  );
}

export const formValues = (form: HTMLFormElement) => Object.fromEntries(new FormData(form).entries()) as Record<string, string>;

/**
 * A button that asks before an action that cannot be undone (delete, revoke): an alert dialog, which
 * keeps focus inside it, starts on Cancel, and gives focus back to the button when it closes.
 */
export function Confirm(props: {
  label: ReactNode;
  title: string;
  description: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger>
        <Button type="button" variant="soft" disabled={props.disabled}>
          {props.label}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content maxWidth="32rem">
        <AlertDialog.Title>{props.title}</AlertDialog.Title>
        <AlertDialog.Description>{props.description}</AlertDialog.Description>
        <div className="actions">
          <AlertDialog.Action>
            <Button type="button" color="red" highContrast onClick={props.onConfirm}>
              {props.confirmLabel}
            </Button>
          </AlertDialog.Action>
          <AlertDialog.Cancel>
            <Button type="button" variant="soft" color="gray">
              Cancel
            </Button>
          </AlertDialog.Cancel>
        </div>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}

/** What a page shows while its code or its first answer is on the way. */
export function PagePending() {
  return (
    <div role="status" aria-label="Loading" className="pending">
      <Skeleton className="skeleton-heading" />
      <Skeleton className="skeleton-line" />
      <Skeleton className="skeleton-line" />
      <Skeleton className="skeleton-line short" />
    </div>
  );
}

/** A list with nothing in it yet: what it will hold, and the way to the first one. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Card className="empty" data-testid="empty">
      <p className="empty-title">{title}</p>
      {children && <p>{children}</p>}
    </Card>
  );
}
