import type { Config } from '../config';
import type { Database } from '../db/client';
import type { Mailer } from '../mail/mailer';
import { createDashboardAudit } from './dashboard-audit';
import { createDashboardTeam } from './dashboard-team';
import { createMerchantAccounts } from './merchant-accounts';
import { createMerchantCredentials } from './merchant-credentials';
import { createTwoFactor } from './two-factor';

/**
 * Who may act for a merchant, built once from their dependencies beside the payment engine
 * (src/payments): dashboard accounts (sign-up, sign-in, sessions, passwords), the merchant's
 * credentials (live key, security code, webhook endpoints, sites), the team and its invitations,
 * two-factor authentication and the audit log. The payment engine writes audit lines and merchants'
 * notices through this folder's modules; nothing here reaches into payments.
 */
export function createAccountServices(deps: {
  db: Database;
  config: Pick<Config, 'secretsKey' | 'mail' | 'http' | 'allowPrivateUrls'>;
  mailer: Mailer;
  now: () => Date;
}) {
  const { db, config, mailer, now } = deps;
  return {
    accounts: createMerchantAccounts({ db, config, mailer, now }),
    credentials: createMerchantCredentials({ db, config, now }),
    team: createDashboardTeam({ db, mailer, publicBaseUrl: config.http.publicBaseUrl }),
    audit: createDashboardAudit({ db }),
    twoFactor: createTwoFactor({ db, secretsKey: config.secretsKey, now }),
  };
}

export type AccountServices = ReturnType<typeof createAccountServices>;
