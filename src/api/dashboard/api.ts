import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MerchantCredentials } from '../../accounts/merchant-credentials';
import type { PaymentService } from '../../payments';
import type { DashboardAudit } from '../../accounts/dashboard-audit';
import type { DashboardTeam } from '../../accounts/dashboard-team';
import auditRoutes from './audit';
import securityRoutes from './security';
import type { TwoFactor } from '../../accounts/two-factor';
import accountRoutes, { type AccountRoutesOptions } from './account';
import developerRoutes from './developers';
import paymentDetailRoutes from './payment-detail';
import teamRoutes from './team';
import { dashboardGuard } from './guard';
import { csrfWriteGuard } from './cookies';
import linkRoutes from './links';
import moneyRoutes from './money';
import paymentListRoutes from './payments';
import type { MerchantMoney } from '../../payments/merchant-money';

// The dashboard's internal API: cookie session, CSRF-checked writes (cookies.ts),
// zod schemas and the v1 error envelope; not part of the public v1 API (hidden from its OpenAPI
// document). One route module per resource. Every route acts on the signed-in person's own
// merchant only: no route takes a merchant id, so there is no other merchant's data to name.

export interface DashboardApiOptions extends Omit<AccountRoutesOptions, 'signedIn'> {
  credentials: MerchantCredentials;
  payments: PaymentService;
  /** Settlement wallets (their change announced to the owners), payouts, settlements, home figures. */
  money: MerchantMoney;
  publicBaseUrl: string;
  /** The origin of PUBLIC_BASE_URL: the one writes may come from. */
  ownOrigin: string;
  now: () => Date;
  team: DashboardTeam;
  audit: DashboardAudit;
  twoFactor: TwoFactor;
}

const dashboardApi: FastifyPluginAsyncZod<DashboardApiOptions> = async (
  app,
  {
    signInLimited,
    resetLimited,
    signUpLimited,
    accounts,
    credentials,
    payments,
    team,
    audit,
    twoFactor,
    secureCookies,
    money,
    publicBaseUrl,
    ownOrigin,
    now,
  },
) => {
  // First, and in this plugin: every route registered below has the guard, however its path is written.
  app.addHook('onRequest', csrfWriteGuard(ownOrigin));
  const signedIn = dashboardGuard(accounts);
  await app.register(accountRoutes, { signInLimited, resetLimited, signUpLimited, accounts, signedIn, secureCookies });
  await app.register(developerRoutes, { credentials, payments, audit, signedIn });
  await app.register(teamRoutes, { team, signedIn });
  await app.register(auditRoutes, { audit, signedIn });
  await app.register(securityRoutes, { twoFactor, signInLimited, signedIn });
  await app.register(paymentDetailRoutes, { payments, signedIn });
  await app.register(paymentListRoutes, { payments, signedIn });
  await app.register(linkRoutes, { payments, signedIn, publicBaseUrl });
  await app.register(moneyRoutes, { money, signedIn, now });
};

export default dashboardApi;
