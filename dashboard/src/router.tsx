import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Link } from '@tanstack/react-router';
import { Layout } from './layout';
import { PagePending } from './ui';
import { SignIn } from './pages/sign-in';
import { SignUp } from './pages/sign-up';
import { moneySearch, paymentSearch } from './search-params';

// Each page is its own chunk, loaded when it is first opened: the sign-in page does not wait for the
// charts, nor the payments list for the Money page's forms. Sign-in and sign-up, the pages a visitor
// without a session starts on, come with the frame (2 KiB): one round trip less before they show.

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is nothing here. <Link to="/">Back to the dashboard</Link>
      </p>
    </>
  );
}

const root = createRootRoute({ component: Layout, notFoundComponent: NotFound });
const page = (path: string, component: ReturnType<typeof lazyRouteComponent>) =>
  createRoute({ getParentRoute: () => root, path, component });
const routeTree = root.addChildren([
  page(
    '/',
    lazyRouteComponent(() => import('./pages/overview'), 'Overview'),
  ),
  page(
    '/developers',
    lazyRouteComponent(() => import('./pages/developers'), 'Developers'),
  ),
  page(
    '/developers/deliveries',
    lazyRouteComponent(() => import('./pages/deliveries'), 'Deliveries'),
  ),
  page(
    '/developers/requests',
    lazyRouteComponent(() => import('./pages/requests'), 'Requests'),
  ),
  page(
    '/payments/$id',
    lazyRouteComponent(() => import('./pages/payment'), 'Payment'),
  ),
  createRoute({
    getParentRoute: () => root,
    path: '/payments',
    component: lazyRouteComponent(() => import('./pages/payments'), 'Payments'),
    validateSearch: paymentSearch,
  }),
  page(
    '/links',
    lazyRouteComponent(() => import('./pages/links'), 'Links'),
  ),
  createRoute({
    getParentRoute: () => root,
    path: '/money',
    component: lazyRouteComponent(() => import('./pages/money'), 'Money'),
    validateSearch: moneySearch,
  }),
  page(
    '/team',
    lazyRouteComponent(() => import('./pages/team'), 'Team'),
  ),
  page(
    '/audit-log',
    lazyRouteComponent(() => import('./pages/audit-log'), 'AuditLog'),
  ),
  page(
    '/security',
    lazyRouteComponent(() => import('./pages/security'), 'Security'),
  ),
  page(
    '/quickstart',
    lazyRouteComponent(() => import('./pages/quickstart'), 'Quickstart'),
  ),
  createRoute({ getParentRoute: () => root, path: '/sign-in', component: SignIn }),
  createRoute({ getParentRoute: () => root, path: '/sign-up', component: SignUp }),
  page(
    '/verify-email',
    lazyRouteComponent(() => import('./pages/verify-email'), 'VerifyEmail'),
  ),
  page(
    '/forgot-password',
    lazyRouteComponent(() => import('./pages/password-reset'), 'ForgotPassword'),
  ),
  page(
    '/reset-password',
    lazyRouteComponent(() => import('./pages/password-reset'), 'ResetPassword'),
  ),
  page(
    '/accept-invitation',
    lazyRouteComponent(() => import('./pages/accept-invitation'), 'AcceptInvitation'),
  ),
]);

export const router = createRouter({ routeTree, basepath: '/dashboard', defaultPendingComponent: PagePending, defaultPendingMs: 200 });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
