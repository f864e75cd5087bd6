// Examples for the OpenAPI document: every request body and every answer shows one, as
// generated clients, mock servers and the docs page show it. A schema's own example wins; otherwise
// the example is composed from its fields' examples, then from the values below, which name one
// coherent payment (the same session, merchant, amounts and addresses everywhere). A field that none
// of these covers leaves its operation without an example, and test/api/openapi-lint.test.ts fails:
// nothing is invented from a bare type. Both linters check every example against its schema.

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  examples?: unknown[];
  additionalProperties?: boolean | Schema;
};

const PAYMENT = 'SV_4f9a1c2b7d8e6f5a4b3c2d1e';
const MERCHANT = 'MER_7Kq2Lm9Xc4Vb8Nz1';
const AT = '2026-01-15T10:30:00.000Z';
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const TX = '0x9f3c2a8e4b1d7c6f5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a';
const PAYOUT_TX = '0x1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c';
const BASE = 'https://pay.example.com';

/** Ids by the object that holds them (`merchant.id`, `exceptions[].id`, …): each kind has its own prefix. */
const IDS: Record<string, string> = {
  merchant: MERCHANT,
  merchants: MERCHANT,
  exception: 'exc_8Hd2Kf7Lq1Zx4Cv9Bn3Mw6Rt',
  exceptions: 'exc_8Hd2Kf7Lq1Zx4Cv9Bn3Mw6Rt',
  payouts: 'po_3Gh8Jk2Lz5Xc7Vb1Nm4Qw9Er',
  payout: 'po_3Gh8Jk2Lz5Xc7Vb1Nm4Qw9Er',
  refund: 'po_3Gh8Jk2Lz5Xc7Vb1Nm4Qw9Er',
  deliveries: 'dlv_2Wd5Fg8Hj1Kl4Zx7Cv0Bn3Mq',
  keys: 'key_5Tr8Yu1Io4Pa7Sd',
  apiKeys: 'key_5Tr8Yu1Io4Pa7Sd',
  key: 'key_5Tr8Yu1Io4Pa7Sd',
  endpoints: 'whe_6Nb9Vc2Xz5Lk8Jh',
  endpoint: 'whe_6Nb9Vc2Xz5Lk8Jh',
  webhookEndpoint: 'whe_6Nb9Vc2Xz5Lk8Jh',
  paymentLink: 'plink_1Qa4Ws7Ed0Rf3Tg6Yh9Uj2Ik',
  site: 'site_3Ed6Rf9Tg2Yh5Uj8',
};

/** One value per field name, for fields whose schema carries no example of its own. */
const VALUES: Record<string, unknown> = {
  id: PAYMENT,
  paymentId: PAYMENT,
  sessionId: PAYMENT,
  transactionId: PAYMENT,
  paymentSessionId: PAYMENT,
  externalSessionId: PAYMENT,
  session_id: PAYMENT,
  merchantId: MERCHANT,
  merchant_id: MERCHANT,
  exceptionId: 'exc_8Hd2Kf7Lq1Zx4Cv9Bn3Mw6Rt',
  deliveryId: 'dlv_2Wd5Fg8Hj1Kl4Zx7Cv0Bn3Mq',
  eventId: 'evt_9Lk2Jh5Gf8Ds1Az4Xc7Vb0Nm',
  site_id: 'site_3Ed6Rf9Tg2Yh5Uj8',
  transaction_code: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
  checkoutUrl: `${BASE}/pay/${PAYMENT}`,
  checkout_url: `${BASE}/pay/${PAYMENT}`,
  url: 'https://shop.example/webhooks/payments',
  webhook_url: 'https://shop.example/webhooks/payments',
  callback_url: 'https://shop.example/wc-api/svc',
  site_url: 'https://shop.example',
  store_url: 'https://shop.example',
  success_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
  explorerUrl: `https://polygonscan.com/tx/${PAYOUT_TX}`,
  createdAt: AT,
  updatedAt: AT,
  approvedAt: AT,
  completedAt: '2026-01-15T10:34:12.000Z',
  confirmedAt: '2026-01-15T10:36:40.000Z',
  broadcastAt: '2026-01-15T10:35:02.000Z',
  resolvedAt: null,
  requestedAt: null,
  revokedAt: null,
  lastUsedAt: '2026-01-15T10:30:00.000Z',
  securityCodeRotatedAt: AT,
  previousKeyExpiresAt: '2026-01-16T10:30:00.000Z',
  expiresAt: '2026-01-15T11:30:00.000Z',
  expires_at: '2026-01-15T11:30:00.000Z',
  at: AT,
  rpcUrl: 'https://polygon-mainnet.g.example.com/v2/***',
  USDC: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  USDT: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
  treasury: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
  sweeper: '0x5A1E5E7e0a6D2c2f3B8D4E9c7F1A3B5d7E9F1c3D',
  account: 'deposit:0x1aD91ee08f21bE3dE0BA2ba6918E714dA6B45836',
  expected: '24500000',
  actual: '24000000',
  note: 'USDC on polygon: the ledger and the chain disagree',
  last_check: null,
  amount: '25.00',
  sourceAmount: '25.00',
  grossAmount: '24.500000',
  expectedGross: '24.500000',
  merchantSettlementAmount: '24.132500',
  platformCommissionAmount: '0.367500',
  balance: '0.000000',
  credited: '24.500000',
  fiat_amount: 25,
  amount_in_usd: 25,
  receive_amount: '24.500000',
  currency: 'USD',
  sourceCurrency: 'USD',
  fiat_currency: 'USD',
  receive_currency: 'USDC',
  destinationAsset: 'USDC',
  asset: 'USDC',
  crypto_currency: 'USDC',
  crypto_asset: 'USDC_POLYGON',
  network: 'polygon',
  crypto_currency_network: 'POLYGON',
  chainId: 137,
  address: ADDRESS,
  walletAddress: ADDRESS,
  wallet_address: ADDRESS,
  depositAddress: '0x1aD91ee08f21bE3dE0BA2ba6918E714dA6B45836',
  from: '0x1aD91ee08f21bE3dE0BA2ba6918E714dA6B45836',
  senders: ['0x8Ba1f109551bD432803012645Ac136ddd64DBA72'],
  tokenContract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  to: ADDRESS,
  token: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  transactionHash: PAYOUT_TX,
  depositTransactionHash: TX,
  txHash: PAYOUT_TX,
  replacedHashes: [],
  blockNumber: '65012345',
  head: '65012400',
  logIndex: 3,
  recordedNow: true,
  confirmations: '55',
  orderStatus: 'processing',
  externalTransactionId: 'sbx_pay_7f3a9c',
  references: { transactionHash: TX, logIndex: 3 },
  wallet_currency: 'USDC',
  wallet_network: 'POLYGON',
  received_usd: 27.05,
  payout_dispatched: true,
  timestamp: 1768473252,
  confirmationsRequired: 30,
  nonce: 12,
  feeWei: '1250000000000000',
  arrivalKey: `polygon:${TX}:3`,
  state: 'confirmed',
  provider: 'sandbox',
  providerPaymentId: 'sbx_pay_7f3a9c',
  providerEventId: 'sbx_evt_2b8d4e',
  railType: 'fiat_to_crypto',
  mode: 'live',
  name: 'Example Shop',
  merchantName: 'Example Shop',
  description: 'Invoice 2026-014',
  orderId: 'order-1042',
  order_id: '1042',
  order_key: 'wc_order_Xy12Ab34',
  merchantOrderId: 'wc-1042',
  external_reference: 'order-1042',
  customerEmail: 'customer@example.com',
  countryCode: 'US',
  commissionBps: 150,
  enabled: true,
  prefix: 'svc_live_4Ab',
  last4: 'x9Qz',
  scopes: 'transactions:read',
  apiKey: 'svc_live_4Ab7Cd0Ef3Gh6Ij9Kl2Mn5Op8Qr1St4Uv',
  api_key: 'svc_live_4Ab7Cd0Ef3Gh6Ij9Kl2Mn5Op8Qr1St4Uv',
  securityCode: 'AB12CD-EF34GH-JK56LM-NP78QR',
  security_code: 'AB12CD-EF34GH-JK56LM-NP78QR',
  secret: 'whsec_3Kd8Lq2Zx7Cv1Bn6Mw4Rt9Yu5Io0Pa',
  webhookSecret: 'whsec_3Kd8Lq2Zx7Cv1Bn6Mw4Rt9Yu5Io0Pa',
  webhook_secret: 'whsec_3Kd8Lq2Zx7Cv1Bn6Mw4Rt9Yu5Io0Pa',
  plugin_version: '1.2.0',
  platform: 'woocommerce',
  message: 'Connected.',
  failureReason: null,
  chainError: null,
  error: null,
  statusCode: 200,
  durationMs: 184,
  eventType: 'payment.completed',
  event: 'payment.completed',
  eventSource: 'provider_webhook',
  status: 'completed',
  paymentStatus: 'completed',
  reviewFlag: null,
  slug: 'card',
  source: 'api',
  terminal: true,
  uri: 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x1aD91ee08f21bE3dE0BA2ba6918E714dA6B45836&uint256=24500000',
  expiresInMinutes: 1440,
};

/** The same name with another type elsewhere (a count, not a decimal string). */
const OTHER_VALUES: Record<string, unknown> = { confirmations: 30 };

const types = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function fits(value: unknown, s: Schema): boolean {
  if (s.enum) return s.enum.includes(value);
  if ('const' in s) return s.const === value;
  const t = types(s);
  if (t.length === 0) return true;
  if (value === null) return t.includes('null');
  if (Array.isArray(value)) return t.includes('array');
  if (typeof value === 'number') return t.includes(Number.isInteger(value) ? 'integer' : 'number') || t.includes('number');
  return t.includes(typeof value);
}

/** An example of `schema`, or undefined when some required field has no example to give. */
export function exampleOf(schema: Schema | undefined, key = '', parent = '', missing?: (field: string) => void): unknown {
  if (!schema) return undefined;
  if (schema.examples?.length) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  const known = key === 'id' && IDS[parent] ? IDS[parent] : VALUES[key];
  if (known !== undefined && fits(known, schema)) return known;
  const other = OTHER_VALUES[key];
  if (other !== undefined && fits(other, schema)) return other;
  if (schema.enum?.length) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const values = branches.map((b) => exampleOf(b, key, parent, missing)).filter((v) => v !== undefined);
    return values.find((v) => v !== null) ?? values[0];
  }
  const t = types(schema);
  if (t.includes('object') || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const value = exampleOf(prop, name, key, missing);
      if (value !== undefined) out[name] = value;
      else if (schema.required?.includes(name)) {
        missing?.(`${key}.${name}`);
        return undefined;
      }
    }
    return out;
  }
  if (t.includes('array')) {
    const item = exampleOf(schema.items, key, parent, missing);
    return item === undefined ? undefined : [item];
  }
  if (schema.format === 'date-time') return AT;
  if (t.length === 1 && t[0] === 'null') return null;
  return undefined;
}
