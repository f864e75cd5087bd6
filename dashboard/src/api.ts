import { formatCryptoAmount, parseCrypto } from '../../src/domain/money';
import type { PaidWith } from '../../src/domain/payment-labels';
import type { z } from 'zod';
import type {
  payoutSettingsInput,
  refundInput,
  signInInput,
  signUpInput,
  teamInviteInput,
  webhookEndpointInput,
} from '../../src/domain/dashboard-inputs';
// The answers' types are those of the server's own response schemas, which it serialises every answer
// through, so a field it adds, renames or drops is a type error here. Types only: nothing of the
// server's modules reaches the bundle.
import type { partlyPaidView, paymentRowView } from '../../src/api/dashboard/payments';
import type { apiKeyView, deliveryView, endpointView, walletView } from '../../src/api/routes/admin/merchant-views';
import { formatDecimal } from './format';

// The dashboard's one way to its internal API (/dashboard/api/, cookie session): JSON both ways, and
// the CSRF token (a cookie the server sets, readable here) repeated in a header on every write.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

function csrfToken(): string {
  const match = /(?:^|;\s*)svc_dash_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]!) : '';
}

export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as { error?: string; message?: string; details?: { path: string; message: string }[] };
  if (!res.ok) throw new ApiError(res.status, json.error ?? 'Error', json.message ?? `The request failed (${res.status}).`, json.details);
  return json as T;
}

// The forms' bodies are the server's own schemas: their input types here, the schemas in forms.ts.
export type SignUpRequest = z.input<typeof signUpInput>;
export type SignInRequest = z.input<typeof signInInput>;
export type RefundRequest = z.input<typeof refundInput>;
export type TeamInviteRequest = z.input<typeof teamInviteInput>;
export type WebhookEndpointRequest = z.input<typeof webhookEndpointInput>;
export type PayoutSettingsRequest = z.input<typeof payoutSettingsInput>;

export interface Me {
  ok: true;
  user: { id: string; email: string; role: 'owner' | 'admin' | 'developer' | 'viewer' };
  merchant: { id: string; name: string; status: 'pending_review' | 'approved' | 'suspended' };
  liveKeyWaiting: boolean;
  steppedUp: boolean;
  twoFactor: boolean;
}

export type ApiKey = z.output<typeof apiKeyView>;

/** eventTypes null: every event. */
export type WebhookEndpoint = z.output<typeof endpointView>;

export type WebhookDelivery = z.output<typeof deliveryView>;

// The same lists the server checks against: these modules import nothing, so the bundle takes them as they are.
export { SCOPES } from '../../src/domain/scopes';
// The roles table is the server's own (pure): the pages show what the API lets a role do.
export { can } from '../../src/domain/dashboard-roles';
export { WEBHOOK_EVENT_TYPES as EVENT_TYPES, TEST_EVENT_TYPE } from '../../src/domain/webhook-event-types';
// How a payment was paid, in the words of its CSVs (a wallet payment never names the provider).
export { paidWithText } from '../../src/domain/payment-labels';
/** An open payment partly paid (6 decimals each). */
export type PartlyPaid = z.output<typeof partlyPaidView>;

export interface Site {
  id: string;
  siteUrl: string;
  platform: string;
  pluginVersion: string;
  status: 'pending_verification' | 'connected';
  verifiedAt: string | null;
  createdAt: string;
}

export interface ApiRequest {
  at: string;
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  key: { id: string; shown: string | null };
}

export interface TimelineEntry {
  at: string;
  kind: string;
  title: string;
  detail: string | null;
  transactionHash: string | null;
  explorerUrl: string | null;
  confirmations: string | null;
  ref: string | null;
}

export interface PaymentException {
  id: string;
  kind: string;
  amount: string;
  asset: string | null;
  status: 'open' | 'accepted' | 'refunded';
  createdAt: string;
  resolvedAt: string | null;
  refundable: boolean;
  refund: {
    address: string;
    amount: string;
    status: 'planned' | 'signed' | 'broadcast' | 'confirmed' | 'failed';
    failureReason: string | null;
    transactionHash: string | null;
    explorerUrl: string | null;
  } | null;
}

export interface PaymentDetail {
  payment: {
    id: string;
    status: PaymentRow['status'];
    amount: string;
    currency: string;
    asset: string;
    network: string;
    railType: string;
    paidWith: PaidWith;
    provider: string | null;
    partlyPaid: PartlyPaid;
    source: string;
    verification: string;
    orderId: string | null;
    customerEmail: string | null;
    paymentLinkId: string | null;
    metadata: Record<string, unknown>;
    depositAddress: string | null;
    expectedGross: string | null;
    refundAddress: string | null;
    cancelReason: string | null;
    createdAt: string;
    expiresAt: string;
    completedAt: string | null;
    settlement: {
      gross: string | null;
      merchantSettlement: string | null;
      platformCommission: string | null;
      transactionHash: string | null;
      explorerUrl: string | null;
      depositTransactionHash: string | null;
    } | null;
  };
  timeline: TimelineEntry[];
  exceptions: PaymentException[];
  deliveries: WebhookDelivery[];
  /** Refunds of the completed payment itself; refundableAmount is the form's default. */
  refunds: { refundable: boolean; refundableAmount: string; refunds: PaymentRefund[] };
}

export interface PaymentRefund {
  id: string;
  amount: string;
  asset: string;
  address: string;
  status: 'requested' | 'refunded' | 'failed';
  failureReason: string | null;
  transactionHash: string | null;
  explorerUrl: string | null;
  requestedBy: string;
  createdAt: string;
  refundedAt: string | null;
}

export interface PaymentProof {
  depositAddress: string | null;
  verification: 'chain' | 'provider';
  network: string;
  asset: string;
  expectedGross: string | null;
  credited: string;
  chain: { chainId: number; token: string; head: string; confirmationsRequired: number; balance: string } | null;
  chainError: string | null;
  credits: {
    transactionHash: string;
    logIndex: number;
    token: string;
    asset: string | null;
    amount: string;
    blockNumber: string;
    confirmations: string | null;
    state: string;
    explorerUrl: string | null;
  }[];
}

/** A row of the payment list (GET /payments). */
export type PaymentRow = z.output<typeof paymentRowView>;

export interface PaymentLink {
  id: string;
  url: string;
  status: 'active' | 'paid' | 'expired';
  amount: string;
  currency: string;
  destinationAsset: string;
  network: string;
  description: string | null;
  merchantOrderId: string | null;
  expiresAt: string;
  createdAt: string;
  sessions: number;
  completed: number;
}

export type Wallet = z.output<typeof walletView>;

export interface Payout {
  id: string;
  paymentId: string;
  status: string;
  asset: string;
  network: string;
  amount: string;
  toAddress: string;
  txHash: string | null;
  failureReason: string | null;
  createdAt: string;
  confirmedAt: string | null;
  /** The payments it paid, each with the share of it the payout carried. */
  payments: { paymentId: string; amount: string }[];
}

export type PayoutSchedule = 'instant' | 'daily' | 'weekly' | 'manual';

/**
 * When a settlement run may pay next: `payoutDue`, the next run may; else at `nextPayoutAt`, or only
 * when asked (null). `payoutRequested`: asked for since the last payout, so whatever the minimum.
 */
export interface NextPayout {
  nextPayoutAt: string | null;
  payoutDue: boolean;
  payoutRequested: boolean;
}

/** GET /payout-settings: the balances, when and how much payouts pay, where to top up. */
export interface PayoutSettings extends NextPayout {
  schedule: PayoutSchedule;
  minimum: string;
  requestedAt: string | null;
  balances: ({ network: string; asset: string; pending: string; available: string; reserved: string; outgoing: string } & NextPayout)[];
  payoutIntervalSeconds: number;
  topUpAddresses: { network: string; address: string }[];
}

export interface Settlement {
  paymentId: string;
  asset: string;
  network: string;
  gross: string;
  commission: string;
  net: string;
  depositTransactionHash: string | null;
  payoutTransactionHash: string;
  completedAt: string | null;
  settledAt: string;
  orderId: string | null;
}

export interface VolumeTotal {
  byAsset: Record<string, string>;
  payments: number;
}

export interface Home {
  today: VolumeTotal;
  month: VolumeTotal;
  days: (VolumeTotal & { day: string })[];
  byStatus: Record<string, number>;
  openExceptions: number;
}

export { FIAT_CURRENCIES } from '../../src/domain/currencies';
// src/domain/assets.ts imports Node's crypto, so its lists are repeated here; the server checks every
// pair and address (422), these only fill the choices.
export const ASSETS = ['USDC', 'USDT'] as const;
export const NETWORKS = ['polygon', 'ethereum', 'base', 'arbitrum', 'solana', 'tron'] as const;
const NETWORK_NAMES: Record<string, string> = {
  polygon: 'Polygon',
  ethereum: 'Ethereum',
  base: 'Base',
  arbitrum: 'Arbitrum',
  solana: 'Solana',
  tron: 'Tron',
};
/** A network as a sentence names it ("Polygon"); one this list does not know, as the API spells it. */
export const networkName = (network: string) => NETWORK_NAMES[network] ?? network;
// Amounts are exact decimal strings from the API: summed as integer micro units, never as floats.
export { formatCryptoAmount, parseCrypto };
/** An API amount as a sentence or a balance shows it: every digit, at least two decimals ("12.50", "24.625"), in the browser's locale. */
export const amountText = (text: string) => formatDecimal(text, { exact: true });

export type Role = Me['user']['role'];
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

export interface Member {
  id: string;
  email: string;
  role: Role;
  emailVerified: boolean;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: { id: string; email: string };
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string;
}
