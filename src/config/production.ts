import { DEV_SETTLEMENT_MNEMONIC } from '../domain/mnemonic';
import type { Issue } from './parse';

/**
 * Values published in this repository (defaults, examples): fine on a laptop, no secret anywhere
 * else. NODE_ENV=production refuses to start with any of them. A new development
 * default (a dev mnemonic, a test key) is one more entry here.
 */
export const DEVELOPMENT_VALUES: Readonly<Record<string, readonly string[]>> = {
  SANDBOX_API_KEY: ['sbx_sk_local_development'],
  SANDBOX_CALLBACK_SECRET: ['sbx_whsec_local_development'],
  // The dev chain's public phrase: its keys would hold real money in production.
  SETTLEMENT_MNEMONIC: [DEV_SETTLEMENT_MNEMONIC],
};

/** Variables whose development value is filled in outside production, and only there. */
export const DEVELOPMENT_DEFAULTS: Readonly<Record<string, string>> = {
  SANDBOX_API_KEY: 'sbx_sk_local_development',
  SANDBOX_CALLBACK_SECRET: 'sbx_whsec_local_development',
};

/**
 * Production never runs on a published value. The sandbox's credentials have no
 * default there, so an enabled sandbox needs its own; lengths of ADMIN_TOKEN and SECRETS_KEY are
 * checked by the schema in every mode.
 */
export function productionIssues(nodeEnv: string, present: Record<string, string | undefined>, sandboxEnabled: boolean) {
  if (nodeEnv !== 'production') return [];
  const issues: Issue[] = [];
  for (const [variable, values] of Object.entries(DEVELOPMENT_VALUES)) {
    const value = present[variable];
    if (value !== undefined && values.includes(value)) {
      issues.push({ variable, message: 'is a published development value; NODE_ENV=production needs a secret of your own' });
    }
  }
  if (present.DEV_MAILBOX_DIR !== undefined) {
    issues.push({ variable: 'DEV_MAILBOX_DIR', message: 'is the local mail sink of development; production sends mail through SMTP_URL' });
  }
  if (present.SMTP_URL !== undefined && present.MAIL_FROM === undefined) {
    issues.push({ variable: 'MAIL_FROM', message: 'is required with SMTP_URL in production (the default names localhost)' });
  }
  if (sandboxEnabled) {
    for (const variable of ['SANDBOX_API_KEY', 'SANDBOX_CALLBACK_SECRET']) {
      if (present[variable] === undefined) issues.push({ variable, message: 'is required with SANDBOX_ENABLED=true in production' });
    }
  }
  return issues;
}
