import { DASHBOARD_ROLES } from '../../src/domain/dashboard-roles';
import { formatCryptoAmount, parseCrypto } from '../../src/domain/money';
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
// server's modules reaches the bundle. The schemas live apart from their routes (src/api/dashboard/views/),
// whose Fastify plugins this compiler does not see.
import type { meView } from '../../src/api/dashboard/views/account';
import type { auditEntryView } from '../../src/api/dashboard/views/audit';
import type { apiRequestView, siteView } from '../../src/api/dashboard/views/developers';
import type { linkView } from '../../src/api/dashboard/views/links';
import type {
  homeView,
  merchantPayoutView,
  payoutSettingsView,
  settlementView,
  volumeTotalView,
} from '../../src/api/dashboard/views/money';
import type { exceptionView, paymentDetailView, paymentProofView, timelineView } from '../../src/api/dashboard/views/payment-detail';
import type { partlyPaidView, paymentRowView } from '../../src/api/dashboard/views/payments';
import type { invitationView, memberView } from '../../src/api/dashboard/views/team';
import type { refundView } from '../../src/api/routes/admin/payment-views';
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

export type Me = z.output<typeof meView>;

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

export type Site = z.output<typeof siteView>;
export type ApiRequest = z.output<typeof apiRequestView>;

export type TimelineEntry = z.output<typeof timelineView>;
export type PaymentException = z.output<typeof exceptionView>;
/** GET /payments/:id. refunds: those of the completed payment itself; refundableAmount is the form's default. */
export type PaymentDetail = z.output<typeof paymentDetailView>;
export type PaymentRefund = z.output<typeof refundView>;
export type PaymentProof = z.output<typeof paymentProofView>;

/** A row of the payment list (GET /payments). */
export type PaymentRow = z.output<typeof paymentRowView>;

export type PaymentLink = z.output<typeof linkView>;

export type Wallet = z.output<typeof walletView>;

/** A payout to the merchant (GET /payouts); `payments`: those it paid, each with the share of it the payout carried. */
export type Payout = z.output<typeof merchantPayoutView>;

/** GET /payout-settings: the balances, when and how much payouts pay, where to top up. */
export type PayoutSettings = z.output<typeof payoutSettingsView>;
export type PayoutSchedule = PayoutSettings['schedule'];

/**
 * When a settlement run may pay next: `payoutDue`, the next run may; else at `nextPayoutAt`, or only
 * when asked (null). `payoutRequested`: asked for since the last payout, so whatever the minimum.
 */
export type NextPayout = Pick<PayoutSettings, 'nextPayoutAt' | 'payoutDue' | 'payoutRequested'>;

export type Settlement = z.output<typeof settlementView>;
export type VolumeTotal = z.output<typeof volumeTotalView>;
export type Home = z.output<typeof homeView>;

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
export const ROLES: readonly Role[] = DASHBOARD_ROLES;

export type Member = z.output<typeof memberView>;
export type Invitation = z.output<typeof invitationView>;
export type AuditEntry = z.output<typeof auditEntryView>;
