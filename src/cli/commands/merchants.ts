import { z } from 'zod';
import { arg, defineCommand, text, value, type ArgDef, type CommandInput, type OpsCommand } from '../command';
import { apiKeyView, formatKey, formatMerchant, formatSecret, formatWallet, merchantView, walletView } from '../render';
import { scopes, wallets, wholeNumber, type WalletValue } from '../values';

// Merchants and their credentials: one row per admin API call.

const merchantId: ArgDef = { name: 'merchantId', description: 'the merchant, MER_…' };
const merchantPath = (input: CommandInput, suffix = '') => `/merchants/${encodeURIComponent(arg(input, 'merchantId'))}${suffix}`;
const merchantAnswer = z.object({ merchant: merchantView });

export const MERCHANT_COMMANDS: readonly OpsCommand[] = [
  defineCommand({
    name: 'merchants create',
    options: [
      { flags: '--name <name>', description: 'the merchant’s display name', required: true },
      { flags: '--commission-bps <bps>', description: 'platform commission in basis points (default 100)', parse: wholeNumber },
      {
        flags: '--wallet <asset:network:address>',
        description: 'a settlement wallet, e.g. USDC:polygon:0x…; repeat for more',
        parse: wallets,
      },
    ],
    summary: 'Create a merchant, pending review; prints its security code once.',
    request: (input) => {
      const commissionBps = value<number>(input, 'commissionBps');
      const list = value<WalletValue[]>(input, 'wallet') ?? [];
      return {
        method: 'POST',
        path: '/merchants',
        body: {
          name: text(input, 'name'),
          ...(commissionBps === undefined ? {} : { commissionBps }),
          ...(list.length ? { wallets: list } : {}),
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
    args: [merchantId],
    summary: 'Show a merchant: status, wallets, keys (display prefix only).',
    request: (input) => ({ method: 'GET', path: merchantPath(input) }),
    response: merchantAnswer,
    render: (b) => formatMerchant(b.merchant),
  }),
  defineCommand({
    name: 'merchants approve',
    args: [merchantId],
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
    args: [merchantId],
    summary: 'Suspend a merchant: its keys answer 403 AccountNotApproved until it is approved again.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/suspend') }),
    response: merchantAnswer,
    render: (b) => formatMerchant(b.merchant),
  }),
  defineCommand({
    name: 'keys create',
    args: [merchantId],
    options: [
      {
        flags: '--scopes <scopes>',
        description: 'comma-separated, e.g. transactions:read,checkout_sessions:create',
        required: true,
        parse: scopes,
      },
    ],
    summary: 'Issue a restricted key with some scopes; printed once.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/api-keys'), body: { scopes: value<string[]>(input, 'scopes') } }),
    response: z.object({ apiKey: z.string(), key: apiKeyView }),
    render: (b) => [`restricted key ${formatKey(b.key)}`, ...formatSecret('key', b.apiKey)],
  }),
  defineCommand({
    name: 'keys rotate',
    args: [merchantId],
    summary: 'Rotate the live key; the previous one keeps working for 24 hours.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/api-keys/rotate') }),
    response: z.object({ apiKey: z.string(), previousKeyExpiresAt: z.string() }),
    render: (b) => [...formatSecret('new live key', b.apiKey), `previous key expires at ${b.previousKeyExpiresAt}`],
  }),
  defineCommand({
    name: 'keys revoke',
    args: [merchantId, { name: 'keyId', description: 'the key, key_… (see merchants get)' }],
    summary: 'Revoke one key at once (a leaked key); it answers 401 from now on.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, `/api-keys/${encodeURIComponent(arg(input, 'keyId'))}/revoke`) }),
    response: z.object({ key: apiKeyView }),
    render: (b) => [`revoked ${formatKey(b.key)}`],
  }),
  defineCommand({
    name: 'security-code rotate',
    args: [merchantId],
    summary: 'Rotate the security code; the old one stops working at once.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/security-code/rotate') }),
    response: z.object({ securityCode: z.string() }),
    render: (b) => [...formatSecret('new security code', b.securityCode), 'the previous code no longer works'],
  }),
  defineCommand({
    name: 'wallets set',
    args: [merchantId],
    options: [
      { flags: '--asset <asset>', description: 'e.g. USDC', required: true },
      { flags: '--network <network>', description: 'e.g. polygon', required: true },
      { flags: '--address <address>', description: 'the wallet address on that network', required: true },
    ],
    summary: 'Set the settlement wallet for one asset and network (replaces that pair only).',
    request: (input) => ({
      method: 'PUT',
      path: merchantPath(input, '/wallets'),
      body: { asset: text(input, 'asset'), network: text(input, 'network'), address: text(input, 'address') },
    }),
    response: z.object({ wallet: walletView, merchant: merchantView }),
    render: (b) => [`wallet set: ${formatWallet(b.wallet)}`, ...formatMerchant(b.merchant)],
  }),
  defineCommand({
    name: 'merchants balance',
    args: [merchantId],
    summary: 'What the platform owes a merchant per network and asset, and its top-up addresses.',
    request: (input) => ({ method: 'GET', path: merchantPath(input, '/balance') }),
    response: z.object({
      balances: z.array(
        z.object({ network: z.string(), asset: z.string(), pending: z.string(), available: z.string(), reserved: z.string() }),
      ),
      topUpAddresses: z.array(z.object({ network: z.string(), address: z.string() })),
    }),
    render: (b) => [
      ...(b.balances.length
        ? b.balances.map((l) => `${l.asset} on ${l.network}: available ${l.available}, reserved ${l.reserved}, pending ${l.pending}`)
        : ['no balance yet']),
      ...b.topUpAddresses.map((t) => `top-up address on ${t.network}: ${t.address}`),
    ],
  }),
  defineCommand({
    name: 'merchants reserve',
    args: [
      merchantId,
      { name: 'amount', description: 'what runs keep back per network and asset before paying out, e.g. 50 (0: nothing)' },
    ],
    summary: 'Set what settlement runs keep back in a merchant’s reserve for refunds.',
    request: (input) => ({ method: 'PUT', path: merchantPath(input, '/reserve'), body: { amount: arg(input, 'amount') } }),
    response: merchantAnswer,
    render: (b) => formatMerchant(b.merchant),
  }),
  defineCommand({
    name: 'merchants payout',
    args: [merchantId],
    summary: 'Ask for a merchant’s payout now: the next settlement run pays what is available, whatever its schedule and minimum.',
    request: (input) => ({ method: 'POST', path: merchantPath(input, '/payouts/request') }),
    response: merchantAnswer,
    render: (b) => formatMerchant(b.merchant),
  }),
  defineCommand({
    name: 'merchants settlements',
    args: [merchantId],
    options: [
      { flags: '--from <date>', description: 'first day or instant (ISO 8601), by payout confirmation; default: the beginning' },
      { flags: '--to <date>', description: 'end, exclusive (ISO 8601); default: now' },
    ],
    summary: 'Settled transactions as CSV (gross, commission, net, deposit and payout transactions, timestamps): redirect to a file.',
    request: (input) => {
      const query = new URLSearchParams();
      for (const key of ['from', 'to'] as const) {
        const v = text(input, key);
        if (v) query.set(key, v);
      }
      const qs = query.toString();
      return { method: 'GET', path: merchantPath(input, `/settlements.csv${qs ? `?${qs}` : ''}`), text: 'text/csv' };
    },
    response: z.string(),
    // The CSV exactly as the API wrote it: one line per settled transaction after the header.
    render: (csv) => [csv.replace(/\r?\n$/, '')],
  }),
];
