import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors';
import type { DashboardSession, MerchantAccounts } from '../../accounts/merchant-accounts';
import type { DashboardRole } from '../../domain/dashboard-roles';
import type { DashboardActor } from '../../accounts/dashboard-audit';
import { SESSION_COOKIE } from './cookies';

// What every dashboard route module shares: who is signed in (401 in the envelope without a
// session, 403 for a role that may not act); its answers' schemas are in views/.

/** Dashboard routes are internal: hidden from the v1 OpenAPI document. */
export const hide = true;

/** The signed-in person as the service layer's audit names them: who, of which merchant, from where. */
export function actorOf(request: FastifyRequest, s: DashboardSession): DashboardActor {
  return { userId: s.userId, email: s.email, role: s.role, merchantId: s.merchantId, ip: request.ip };
}

/**
 * The signed-in person of a request, if their role is among `roles`. With `stepUp`, the action
 * (one that moves money or reveals a secret) also asks for a recent step-up inside the session
 * (POST /dashboard/api/step-up: the password, and the second factor where enrolled); an owner must
 * have a second factor enrolled for it at all.
 */
export type SignedIn = (
  request: FastifyRequest,
  roles?: readonly DashboardRole[],
  options?: { stepUp?: boolean },
) => Promise<DashboardSession>;

export function dashboardGuard(accounts: MerchantAccounts): SignedIn {
  return async (request, roles, options) => {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await accounts.session(token) : undefined;
    if (!session) throw new AppError('Unauthorized', 'Sign in to the dashboard first.');
    if (roles && !roles.includes(session.role)) throw new AppError('Forbidden', 'Your role does not allow this.');
    // An owner holds the keys to everything, so their step-up must include a second factor.
    if (options?.stepUp && session.role === 'owner' && !session.twoFactorEnabled) {
      throw new AppError('Forbidden', 'Owners turn on two-factor authentication (Account security) before this action.');
    }
    if (options?.stepUp && !session.steppedUpRecently) {
      throw new AppError('Forbidden', 'Confirm your password first: this action asks who you are again.');
    }
    return session;
  };
}
