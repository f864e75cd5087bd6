import { Button, Theme } from '@radix-ui/themes';
import { useMutation } from '@tanstack/react-query';
import { Link, Outlet, useRouterState } from '@tanstack/react-router';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { api, can, type Me } from './api';
import { PaymentSearchBox } from './search';
import { StepUpProvider } from './step-up';
import { ToastProvider } from './toast';
import { useMe } from './ui';

// The frame every signed-in page shares, as merchants know it from other payment dashboards: the
// sections in a sidebar (behind a Menu button on a phone) with the current one marked, a search for a
// payment from anywhere, the docs and a quickstart, and who is signed in with Sign out.

/** The pages a visitor without a session lands on: no frame, and no read of the session (a 401 would be logged). */
const PUBLIC_PATHS = new Set(['/sign-in', '/sign-up', '/verify-email', '/forgot-password', '/reset-password', '/accept-invitation']);

const dark = typeof window === 'undefined' ? null : window.matchMedia('(prefers-color-scheme: dark)');

/** The visitor's own light or dark setting, followed as it changes (Radix Themes takes it as a class). */
function useColorScheme(): 'light' | 'dark' {
  const isDark = useSyncExternalStore(
    (onChange) => {
      dark?.addEventListener('change', onChange);
      return () => dark?.removeEventListener('change', onChange);
    },
    () => dark?.matches ?? false,
  );
  return isDark ? 'dark' : 'light';
}

function Sections({ me, open }: { me: Me; open: boolean }) {
  const signOut = useMutation({
    mutationFn: () => api('POST', '/sign-out'),
    // A fresh load of the sign-in page: nothing of the session stays in memory, and the pages still
    // shown meanwhile do not ask again for what the ended session read (a 401 each).
    onSuccess: () => window.location.assign('/dashboard/sign-in'),
  });
  return (
    <nav aria-label="Sections" id="sections" className="sidebar" data-open={open}>
      <ul className="plain">
        <li>
          <Link to="/" activeOptions={{ exact: true }}>
            Overview
          </Link>
        </li>
        <li>
          <Link to="/payments">Payments</Link>
        </li>
        <li>
          <Link to="/links">Payment links</Link>
        </li>
        <li>
          <Link to="/money">Money</Link>
        </li>
        <li>
          <Link to="/developers">Developers</Link>
        </li>
        {can(me.user.role, 'team.read') && (
          <li>
            <Link to="/team">Team</Link>
          </li>
        )}
        {can(me.user.role, 'audit.read') && (
          <li>
            <Link to="/audit-log">Audit log</Link>
          </li>
        )}
        <li>
          <Link to="/security">Account security</Link>
        </li>
      </ul>
      <p className="sidebar-heading" id="help-heading">
        Help
      </p>
      <ul className="plain" aria-labelledby="help-heading">
        <li>
          <Link to="/quickstart">Quickstart</Link>
        </li>
        {/* Served by this instance itself (Swagger UI from the OpenAPI document), so it is there self-hosted too. */}
        <li>
          <a href="/docs">API reference</a>
        </li>
      </ul>
      <div className="whoami">
        <p>
          {me.user.email}
          <br />
          <small>{me.user.role}</small>
        </p>
        <Button type="button" variant="soft" color="gray" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </Button>
      </div>
    </nav>
  );
}

function SignedInFrame() {
  const me = useMe();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const [menuOpen, setMenuOpen] = useState(false);
  // A phone's menu closes once a section is chosen.
  useEffect(() => setMenuOpen(false), [pathname]);
  return (
    <div className="frame">
      <header className="top">
        <Link to="/" className="brand">
          {me.data?.merchant.name ?? 'Merchant dashboard'}
        </Link>
        {me.data && <PaymentSearchBox />}
        {me.data && (
          <Button
            type="button"
            variant="soft"
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="sections"
            onClick={() => setMenuOpen((o) => !o)}
          >
            Menu
          </Button>
        )}
      </header>
      {me.data && <Sections me={me.data} open={menuOpen} />}
      <main id="main" tabIndex={-1}>
        <ToastProvider>
          <StepUpProvider>
            <Outlet />
          </StepUpProvider>
        </ToastProvider>
      </main>
    </div>
  );
}

export function Layout() {
  const scheme = useColorScheme();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const isPublic = PUBLIC_PATHS.has(pathname.replace(/^\/dashboard/, '').replace(/\/$/, '') || '/');
  return (
    <Theme appearance={scheme} accentColor="indigo" grayColor="slate" hasBackground={false}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      {isPublic ? (
        <>
          <header className="top">
            <span className="brand">Merchant dashboard</span>
          </header>
          <main id="main" tabIndex={-1} className="public">
            <StepUpProvider>
              <Outlet />
            </StepUpProvider>
          </main>
        </>
      ) : (
        <SignedInFrame />
      )}
    </Theme>
  );
}
