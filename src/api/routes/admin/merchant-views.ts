import { PAYOUT_SCHEDULES } from '../../../domain/balances';
import { formatCrypto } from '../../../domain/money';
import { z } from 'zod';
import type { MerchantDetail } from '../../../payments/admin-merchants';
import type { ApiKeyRow, DeliveryWithAttempts, EndpointRow } from '../../../payments/rows';
import { ASSETS, isSupportedPair, NETWORKS, normalizeWalletAddress } from '../../../domain/assets';
import { validationError } from '../../../domain/errors';

// What the merchant admin routes share: the views an operator sees (never a key, hash or secret),
// and the checks of wallet input both route modules use.

export const walletInput = z.strictObject({
  asset: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(ASSETS)),
  network: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(NETWORKS)),
  address: z.string().trim().min(1).max(128),
});
export type WalletInput = z.output<typeof walletInput>;

export const walletView = z.object({ asset: z.string(), network: z.string(), address: z.string(), updatedAt: z.string() });
export const apiKeyView = z.object({
  id: z.string(),
  kind: z.enum(['live', 'restricted']),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
// A webhook endpoint as operators and the dashboard see it: never its secret, in any form (that is
// shown once, by the answer that made it).
export const endpointView = z.object({
  id: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  eventTypes: z.array(z.string()).nullable().describe('The event types sent to it; null: every event.'),
  createdAt: z.string(),
});
export const viewEndpoint = (e: EndpointRow): z.infer<typeof endpointView> => ({
  id: e.id,
  url: e.url,
  enabled: e.enabled,
  eventTypes: e.eventTypes,
  createdAt: e.createdAt.toISOString(),
});

// A delivery with every attempt, as operators (a payment's) and the dashboard (the merchant's log) see it.
const attemptView = z.object({ at: z.string(), statusCode: z.number().nullable(), durationMs: z.number(), error: z.string().nullable() });
export const deliveryView = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  url: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  createdAt: z.string(),
  attempts: z.array(attemptView),
});
export const viewDelivery = (r: DeliveryWithAttempts): z.infer<typeof deliveryView> => ({
  id: r.delivery.id,
  eventId: r.delivery.eventId,
  eventType: r.eventType,
  url: r.delivery.url,
  status: r.delivery.status,
  createdAt: r.delivery.createdAt.toISOString(),
  attempts: r.attempts.map((a) => ({
    at: a.attemptedAt.toISOString(),
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    error: a.error,
  })),
});

export const merchantView = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['pending_review', 'approved', 'suspended']),
  commissionBps: z.number().int(),
  createdAt: z.string(),
  approvedAt: z.string().nullable(),
  securityCodeRotatedAt: z.string(),
  wallets: z.array(walletView),
  apiKeys: z.array(apiKeyView),
  // Batched settlement (docs/settlement.md): when its balance is paid out, and what is kept back.
  payouts: z.object({
    schedule: z.enum(PAYOUT_SCHEDULES),
    minimum: z.string().meta({ description: 'The least a payout pays, unless asked for.', examples: ['0.000000'] }),
    reserveTarget: z.string().meta({ description: 'What runs keep back for refunds per network and asset.', examples: ['0.000000'] }),
    requestedAt: z.string().nullable().meta({ description: 'A payout asked for outside the schedule, paid by the next run.' }),
  }),
});

export const merchantParams = z.object({ id: z.string() });
export const ok = z.literal(true);

export const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function viewKey(k: ApiKeyRow): z.infer<typeof apiKeyView> {
  return {
    id: k.id,
    kind: k.kind,
    prefix: k.displayPrefix,
    last4: k.last4,
    scopes: k.scopes,
    createdAt: k.createdAt.toISOString(),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    lastUsedAt: iso(k.lastUsedAt),
  };
}

export function viewMerchant({ merchant: m, wallets, apiKeys: keys }: MerchantDetail): z.infer<typeof merchantView> {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    commissionBps: m.commissionBps,
    createdAt: m.createdAt.toISOString(),
    approvedAt: iso(m.approvedAt),
    securityCodeRotatedAt: m.securityCodeRotatedAt.toISOString(),
    wallets: wallets.map((w) => ({ asset: w.asset, network: w.network, address: w.address, updatedAt: w.updatedAt.toISOString() })),
    apiKeys: keys.map(viewKey),
    payouts: {
      schedule: m.payoutSchedule,
      minimum: formatCrypto(m.payoutMinimumMicro),
      reserveTarget: formatCrypto(m.reserveTargetMicro),
      requestedAt: iso(m.payoutRequestedAt),
    },
  };
}

/** The wallets with each address in its network's canonical form (EIP-55 for EVM), or a 422 naming the bad one. */
export function checkWallets(wallets: WalletInput[]): WalletInput[] {
  const details: { path: string; message: string }[] = [];
  const checked = wallets.map((w, i) => {
    if (!isSupportedPair(w.asset, w.network)) {
      details.push({ path: `wallets.${i}`, message: `${w.asset} on ${w.network} is not a supported pair.` });
      return w;
    }
    const address = normalizeWalletAddress(w.network, w.address);
    if (!address) details.push({ path: `wallets.${i}.address`, message: `Not a ${w.network} address (checksum included).` });
    return { ...w, address: address ?? w.address };
  });
  if (details.length) throw validationError(details, 'A wallet is not valid.');
  return checked;
}
