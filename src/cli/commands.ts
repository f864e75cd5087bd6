import { z } from 'zod';
import { defineCommand, type Command, type CommandInput } from './command';
import {
  apiKeyView,
  deliveryView,
  endpointView,
  formatDelivery,
  formatKey,
  formatMerchant,
  formatPayments,
  formatSecret,
  formatWallet,
  merchantView,
  paymentsView,
  walletView,
} from './render';

// One row per admin API call (decisions §10). Validation of values (asset names, address shapes,
// scopes, ranges) is left to the API so that the CLI never disagrees with the deployment it calls.

const merchantPath = (input: CommandInput, suffix = '') => `/merchants/${encodeURIComponent(input.arg('merchantId'))}${suffix}`;

function integer(input: CommandInput, name: string): number | undefined {
  const raw = input.option(name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) input.fail(`--${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function wallet(input: CommandInput, raw: string) {
  // The address goes last so that it may contain anything, colons included.
  const match = /^([^:]+):([^:]+):(.+)$/.exec(raw);
  if (!match) input.fail(`--wallet must be ASSET:NETWORK:ADDRESS, got "${raw}"`);
  return { asset: match[1]!, network: match[2]!, address: match[3]! };
}

function scopes(input: CommandInput): string[] {
  const list = input
    .required('scopes')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.length) input.fail('--scopes needs at least one scope');
  return list;
}

const merchantAnswer = z.object({ merchant: merchantView });

export const COMMANDS: readonly Command[] = [
  defineCommand({
    name: 'merchants create',
    options: { name: { type: 'string' }, 'commission-bps': { type: 'string' }, wallet: { type: 'string', multiple: true } },
    synopsis: '--name NAME [--commission-bps BPS] [--wallet ASSET:NETWORK:ADDRESS ...]',
    summary: 'Create a merchant, pending review (commission defaults to 100 bps); prints its security code once.',
    request: (input) => {
      const commissionBps = integer(input, 'commission-bps');
      const wallets = input.list('wallet').map((w) => wallet(input, w));
      return {
        method: 'POST',
        path: '/merchants',
        body: {
          name: input.required('name'),
          ...(commissionBps === undefined ? {} : { commissionBps }),
          ...(wallets.length ? { wallets } : {}),
        },
      };
    },
    response: z.object({ merchant: merchantView, securityCode: z.string(), webhookSecret: z.string().optional() }),
    render: (b) => [
      ...formatMerchant(b.merchant),
      ...formatSecret('security code', b.securityCode),
      ...(b.webhookSecret ? formatSecret('webhook secret (signs deliveries to a session webhookUrl)', b.webhookSecret) : []),
      `next: merchants approve ${b.merchant.id}`,
    ],
  }),
  defineCommand({
    name: 'merchants list',
    summary: 'List merchants, newest first.',
    request: () => ({ method: 'GET', path: '/merchants' }),
    response: z.object({ merchants: z.array(merchantView) }),
    render: (b) => (b.merchants.length ? b.merchants.map((m) => `${m.id} ${m.status.padEnd(14)} "${m.name}"`) : ['no merchants']),
  }),
  defineCommand({
    name: 'merchants get',
    args: ['merchantId'],
    summary: 'Show a merchant: status, wallets, keys (display prefix only).',
    request: (input) => ({ method: 'GET', path: merchantPath(input) }),
    response: merchantAnswer,
    render: (b) => formatMerchant(b.merchant),
  }),
  defineCommand({
    name: 'merchants approve',
    args: ['merchantId'],
    summary: 'Approve a merchant; the first approval issues the live key, printed once.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/approve') }),
    response: z.object({ merchant: merchantView, apiKey: z.string().nullable() }),
    render: (b) => [
      ...formatMerchant(b.merchant),
      ...(b.apiKey ? formatSecret('live key', b.apiKey) : ['no new key: the existing keys work again']),
    ],
  }),
  defineCommand({
    name: 'merchants suspend',
    args: ['merchantId'],
    summary: 'Suspend a merchant: its keys answer 403 AccountNotApproved until it is approved again.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/suspend') }),
    response: merchantAnswer,
    render: (b) => formatMerchant(b.merchant),
  }),
  defineCommand({
    name: 'keys create',
    args: ['merchantId'],
    options: { scopes: { type: 'string' } },
    synopsis: '--scopes SCOPE[,SCOPE...]',
    summary: 'Issue a restricted key with some scopes; printed once.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/api-keys'), body: { scopes: scopes(input) } }),
    response: z.object({ apiKey: z.string(), key: apiKeyView }),
    render: (b) => [`restricted key ${formatKey(b.key)}`, ...formatSecret('key', b.apiKey)],
  }),
  defineCommand({
    name: 'keys rotate',
    args: ['merchantId'],
    summary: 'Rotate the live key; the previous one keeps working for 24 hours.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/api-keys/rotate') }),
    response: z.object({ apiKey: z.string(), previousKeyExpiresAt: z.string() }),
    render: (b) => [...formatSecret('new live key', b.apiKey), `previous key expires at ${b.previousKeyExpiresAt}`],
  }),
  defineCommand({
    name: 'keys revoke',
    args: ['merchantId', 'keyId'],
    summary: 'Revoke one key at once (a leaked key); it answers 401 from now on.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, `/api-keys/${encodeURIComponent(input.arg('keyId'))}/revoke`) }),
    response: z.object({ key: apiKeyView }),
    render: (b) => [`revoked ${formatKey(b.key)}`],
  }),
  defineCommand({
    name: 'security-code rotate',
    args: ['merchantId'],
    summary: 'Rotate the security code; the old one stops working at once.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/security-code/rotate') }),
    response: z.object({ securityCode: z.string() }),
    render: (b) => [...formatSecret('new security code', b.securityCode), 'the previous code no longer works'],
  }),
  defineCommand({
    name: 'wallets set',
    args: ['merchantId'],
    options: { asset: { type: 'string' }, network: { type: 'string' }, address: { type: 'string' } },
    synopsis: '--asset ASSET --network NETWORK --address ADDRESS',
    summary: 'Set the settlement wallet for one asset and network (replaces that pair only).',
    request: (input) => ({
      method: 'PUT',
      path: merchantPath(input, '/wallets'),
      body: { asset: input.required('asset'), network: input.required('network'), address: input.required('address') },
    }),
    response: z.object({ wallet: walletView, merchant: merchantView }),
    render: (b) => [`wallet set: ${formatWallet(b.wallet)}`, ...formatMerchant(b.merchant)],
  }),
  defineCommand({
    name: 'webhooks add',
    args: ['merchantId'],
    options: { url: { type: 'string' } },
    synopsis: '--url URL',
    summary: 'Register a webhook endpoint for a merchant; prints its signing secret once.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/webhook-endpoints'), body: { url: input.required('url') } }),
    response: z.object({ endpoint: endpointView, secret: z.string() }),
    render: (b) => [`endpoint ${b.endpoint.id} ${b.endpoint.url}`, ...formatSecret('signing secret', b.secret)],
  }),
  defineCommand({
    name: 'deliveries list',
    args: ['paymentId'],
    summary: 'Webhook deliveries of a payment, with every attempt (status code, duration, error).',
    request: (input) => ({ method: 'GET', path: `/webhook-deliveries?paymentId=${encodeURIComponent(input.arg('paymentId'))}` }),
    response: z.object({ deliveries: z.array(deliveryView) }),
    render: (b) => (b.deliveries.length ? b.deliveries.flatMap(formatDelivery) : ['no deliveries']),
  }),
  defineCommand({
    name: 'deliveries resend',
    args: ['deliveryId'],
    summary: 'Deliver again: same delivery and event ids, same body, a fresh signature.',
    request: (input) => ({ method: 'POST', path: `/webhook-deliveries/${encodeURIComponent(input.arg('deliveryId'))}/resend` }),
    response: z.object({ deliveryId: z.string(), status: z.string() }),
    render: (b) => [`delivery ${b.deliveryId} queued again (${b.status})`],
  }),
  defineCommand({
    name: 'payments status',
    summary: 'Show whether new payments are accepted (the kill switch).',
    request: () => ({ method: 'GET', path: '/settings/payments' }),
    response: paymentsView,
    render: formatPayments,
  }),
  defineCommand({
    name: 'payments disable',
    summary: 'Refuse every new payment platform-wide; payments under way continue.',
    request: () => ({ method: 'PUT', path: '/settings/payments', body: { enabled: false } }),
    response: paymentsView,
    render: formatPayments,
  }),
  defineCommand({
    name: 'payments enable',
    summary: 'Accept new payments again.',
    request: () => ({ method: 'PUT', path: '/settings/payments', body: { enabled: true } }),
    response: paymentsView,
    render: formatPayments,
  }),
];
