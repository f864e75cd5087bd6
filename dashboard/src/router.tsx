import { createRootRoute, createRoute, createRouter, Link, Outlet } from '@tanstack/react-router';
import { AcceptInvitation } from './pages/accept-invitation';
import { AuditLog } from './pages/audit-log';
import { Deliveries } from './pages/deliveries';
import { Developers } from './pages/developers';
import { Links } from './pages/links';
import { Money, moneySearch } from './pages/money';
import { Payments, paymentSearch } from './pages/payments';
import { Overview } from './pages/overview';
import { Payment } from './pages/payment';
import { ForgotPassword, ResetPassword } from './pages/password-reset';
import { Requests } from './pages/requests';
import { Security } from './pages/security';
import { SignIn } from './pages/sign-in';
import { SignUp } from './pages/sign-up';
import { Team } from './pages/team';
import { VerifyEmail } from './pages/verify-email';
import { StepUpProvider } from './step-up';

function Layout() {
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Merchant dashboard
        </Link>
      </header>
      <main id="main" tabIndex={-1}>
        <StepUpProvider>
          <Outlet />
        </StepUpProvider>
      </main>
    </>
  );
}

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
const routeTree = root.addChildren([
  createRoute({ getParentRoute: () => root, path: '/', component: Overview }),
  createRoute({ getParentRoute: () => root, path: '/developers', component: Developers }),
  createRoute({ getParentRoute: () => root, path: '/developers/deliveries', component: Deliveries }),
  createRoute({ getParentRoute: () => root, path: '/developers/requests', component: Requests }),
  createRoute({ getParentRoute: () => root, path: '/payments/$id', component: Payment }),
  createRoute({ getParentRoute: () => root, path: '/payments', component: Payments, validateSearch: paymentSearch }),
  createRoute({ getParentRoute: () => root, path: '/links', component: Links }),
  createRoute({ getParentRoute: () => root, path: '/money', component: Money, validateSearch: moneySearch }),
  createRoute({ getParentRoute: () => root, path: '/team', component: Team }),
  createRoute({ getParentRoute: () => root, path: '/audit-log', component: AuditLog }),
  createRoute({ getParentRoute: () => root, path: '/security', component: Security }),
  createRoute({ getParentRoute: () => root, path: '/sign-in', component: SignIn }),
  createRoute({ getParentRoute: () => root, path: '/sign-up', component: SignUp }),
  createRoute({ getParentRoute: () => root, path: '/verify-email', component: VerifyEmail }),
  createRoute({ getParentRoute: () => root, path: '/forgot-password', component: ForgotPassword }),
  createRoute({ getParentRoute: () => root, path: '/reset-password', component: ResetPassword }),
  createRoute({ getParentRoute: () => root, path: '/accept-invitation', component: AcceptInvitation }),
]);

export const router = createRouter({ routeTree, basepath: '/dashboard' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
