// Every owner is told when a settlement wallet changes, whoever changed it: a
// stolen session that redirects the merchant's money must not go unnoticed.

export interface WalletChangeFacts {
  merchant: string;
  asset: string;
  /** The network's display name ("Polygon"). */
  network: string;
  previous: string | null;
  address: string;
  changedBy: string;
  at: Date;
  dashboardUrl: string;
}

export function walletChangeMail(f: WalletChangeFacts): { subject: string; text: string } {
  return {
    subject: `Settlement wallet changed: ${f.asset} on ${f.network}`,
    text: [
      `The settlement wallet of ${f.merchant} for ${f.asset} on ${f.network} was changed by ${f.changedBy} at ${f.at.toISOString()}.`,
      '',
      `Before: ${f.previous ?? '(none)'}`,
      `Now:    ${f.address}`,
      '',
      'Payments opened from now on settle to the new address.',
      `If you did not expect this, sign in at ${f.dashboardUrl}, set the wallet back and change your password.`,
      '',
    ].join('\n'),
  };
}
