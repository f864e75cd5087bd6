// A merchant's owners hear that the operator approved the account, and that its live key
// waits for them in the dashboard (shown there once; never in a mail).

export interface ApprovalFacts {
  merchant: string;
  /** Whether this approval issued the live key (a first approval), to be revealed in the dashboard. */
  keyWaiting: boolean;
  dashboardUrl: string;
}

export function approvalMail(f: ApprovalFacts): { subject: string; text: string } {
  return {
    subject: `${f.merchant} is approved`,
    text: [
      `Good news: the merchant account ${f.merchant} is approved, and it can take payments.`,
      '',
      f.keyWaiting
        ? `Your live API key is ready. Sign in at ${f.dashboardUrl}/ and reveal it on the overview: it is shown once, so save it when you see it.`
        : `Your existing API keys work again. Sign in at ${f.dashboardUrl}/ to manage them.`,
      '',
      'Revealing a key asks an owner for two-factor authentication and their password again (Account security).',
      '',
    ].join('\n'),
  };
}
