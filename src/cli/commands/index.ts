import type { OpsCommand } from '../command';
import { EXCEPTION_COMMANDS } from './exceptions';
import { MERCHANT_COMMANDS } from './merchants';
import { PAYMENT_COMMANDS } from './payments';
import { PAYOUT_COMMANDS } from './payouts';
import { RECONCILE_COMMANDS } from './reconcile';
import { WEBHOOK_COMMANDS } from './webhooks';

/** Every ops command, in the order the help lists them. */
export const COMMANDS: readonly OpsCommand[] = [
  ...MERCHANT_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...PAYMENT_COMMANDS,
  ...EXCEPTION_COMMANDS,
  ...PAYOUT_COMMANDS,
  ...RECONCILE_COMMANDS,
];

/** The first word of a command name is a group; its line in the main help. */
export const GROUPS: Record<string, string> = {
  merchants: 'create, list, get, approve, suspend merchants',
  keys: 'restricted keys, live key rotation (24 h grace), revocation',
  'security-code': 'rotate a merchant’s security code',
  wallets: 'set a merchant’s settlement wallets',
  webhooks: 'a merchant’s webhook endpoints: add, list, disable, enable, delete',
  deliveries: 'webhook deliveries of a payment: list with every attempt, resend',
  payments: 'the payment kill switch; wait for a payment to finish',
  exceptions: 'money off the happy path: list the queue, accept, refund',
  payouts: 'payouts that failed: list them with their reasons, retry one',
  reconcile: 'the ledger against the chain and the transactions table',
  treasury: 'record an operator’s funding of a treasury',
};
