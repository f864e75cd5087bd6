import { z } from 'zod';
import type {
  apiKeyView as serverApiKeyView,
  deliveryView as serverDeliveryView,
  endpointView as serverEndpointView,
  merchantView as serverMerchantView,
  walletView as serverWalletView,
} from '../api/routes/admin/merchant-views';
import type { proofView as serverProofView } from '../api/routes/admin/payment-views';
import type { paymentView as serverPaymentView, transactionSummary as serverTransactionSummary } from '../api/routes/admin/payments';
import type { paymentsView as serverPaymentsView } from '../api/routes/admin/settings';

// Just the fields the summaries print. Kept apart from the API's own schemas on purpose: the CLI
// talks to deployments of other versions, so it reads leniently (plain strings, optional fields)
// instead of parsing with the server's schemas. What it reads is still checked against this
// version's schemas when it compiles: see ReadsServer.

/**
 * True when every answer this version's server schema can send parses with the CLI's lenient one: a
 * field a summary needs that the server renames, drops or retypes is a compile error here, not a
 * summary replaced by raw JSON at run time.
 */
export type ReadsServer<Cli extends z.ZodType, Server extends z.ZodType> = [z.output<Server>] extends [z.input<Cli>] ? true : false;
/** Compiles only for `true`: the checks below and beside the commands' own views. */
export type Holds<T extends true> = T;

export const walletView = z.object({ asset: z.string(), network: z.string(), address: z.string() });

export const apiKeyView = z.object({
  id: z.string(),
  kind: z.string(),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  expiresAt: z.string().nullable().optional(),
  revokedAt: z.string().nullable().optional(),
  lastUsedAt: z.string().nullable().optional(),
});

export const merchantView = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  commissionBps: z.number(),
  createdAt: z.string(),
  approvedAt: z.string().nullable().optional(),
  securityCodeRotatedAt: z.string().optional(),
  wallets: z.array(walletView),
  apiKeys: z.array(apiKeyView),
  payouts: z
    .object({ schedule: z.string(), minimum: z.string(), reserveTarget: z.string(), requestedAt: z.string().nullable() })
    .optional(),
});

export const paymentsView = z.object({ enabled: z.boolean(), updatedAt: z.string().nullable() });

export const SHOWN_ONCE = 'shown once, store it now: it cannot be retrieved again';

const field = (label: string, value: string) => `  ${label.padEnd(14)}${value}`;

export const formatWallet = (w: z.infer<typeof walletView>) => `${w.asset}/${w.network} ${w.address}`;

/** A key as listings show it: display prefix and last four only, never the key itself. */
export function formatKey(k: z.infer<typeof apiKeyView>): string {
  const state = [
    k.revokedAt ? `revoked ${k.revokedAt}` : null,
    k.expiresAt ? `expires ${k.expiresAt}` : null,
    k.lastUsedAt ? `last used ${k.lastUsedAt}` : 'never used',
  ].filter(Boolean);
  return `${k.id} ${k.kind} ${k.prefix}…${k.last4} [${k.scopes.join(', ')}] ${state.join(', ')}`;
}

export function formatMerchant(m: z.infer<typeof merchantView>): string[] {
  return [
    `merchant ${m.id} "${m.name}"`,
    field('status', m.status),
    // approvedAt survives a suspension, so it is shown as history rather than beside the status.
    ...(m.approvedAt ? [field('approved', m.approvedAt)] : []),
    field('commission', `${m.commissionBps} bps`),
    field('created', m.createdAt),
    ...(m.securityCodeRotatedAt ? [field('security code', `set ${m.securityCodeRotatedAt}`)] : []),
    ...(m.wallets.length ? m.wallets.map((w, i) => field(i ? '' : 'wallets', formatWallet(w))) : [field('wallets', 'none')]),
    ...(m.apiKeys.length ? m.apiKeys.map((k, i) => field(i ? '' : 'api keys', formatKey(k))) : [field('api keys', 'none')]),
    ...(m.payouts
      ? [
          field(
            'payouts',
            `${m.payouts.schedule}, minimum ${m.payouts.minimum}, reserve ${m.payouts.reserveTarget}${m.payouts.requestedAt ? `, asked for ${m.payouts.requestedAt}` : ''}`,
          ),
        ]
      : []),
  ];
}

/** A secret the API returns exactly once, with the warning an operator must not miss. */
export function formatSecret(label: string, value: string): string[] {
  return [`${label}: ${value}`, `  ${SHOWN_ONCE}`];
}

export function formatPayments(p: z.infer<typeof paymentsView>): string[] {
  const since = p.updatedAt ? ` (since ${p.updatedAt})` : '';
  return p.enabled
    ? [`payments: enabled${since}`]
    : [`payments: DISABLED${since}`, '  new payments are refused with 403 PaymentsDisabled; payments under way continue'];
}

export const endpointView = z.object({ id: z.string(), url: z.string(), enabled: z.boolean().optional() });

export function formatEndpoint(e: z.infer<typeof endpointView>): string {
  const state = e.enabled === undefined ? '' : e.enabled ? ' (enabled)' : ' (disabled)';
  return `${e.id} ${e.url}${state}`;
}

export const deliveryView = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  url: z.string(),
  status: z.string(),
  attempts: z.array(z.object({ at: z.string(), statusCode: z.number().nullable(), durationMs: z.number(), error: z.string().nullable() })),
});

export function formatDelivery(d: z.infer<typeof deliveryView>): string[] {
  return [
    `delivery ${d.id} ${d.eventType} (${d.eventId}) → ${d.url}: ${d.status}`,
    ...d.attempts.map((a) => field('', `${a.at} ${a.statusCode ?? '—'} ${a.durationMs} ms${a.error ? ` ${a.error}` : ''}`)),
  ];
}

export const paymentAnswer = z.object({
  payment: z.object({ id: z.string(), status: z.string(), terminal: z.boolean(), amount: z.string(), currency: z.string() }),
  transaction: z
    .object({
      status: z.string(),
      grossAmount: z.string().nullable(),
      merchantSettlementAmount: z.string().nullable(),
      platformCommissionAmount: z.string().nullable(),
      asset: z.string(),
      network: z.string(),
      transactionHash: z.string().nullable(),
      failureReason: z.string().nullable(),
    })
    .nullable(),
});

/** `payment SV_… completed`, first, so that scripts can read the status from the first line. */
export function formatPayment(b: z.infer<typeof paymentAnswer>): string[] {
  const t = b.transaction;
  return [
    `payment ${b.payment.id} ${b.payment.status}`,
    field('amount', `${b.payment.amount} ${b.payment.currency}`),
    ...(t?.grossAmount ? [field('settled', `${t.grossAmount} ${t.asset} on ${t.network}`)] : []),
    ...(t?.merchantSettlementAmount ? [field('merchant', t.merchantSettlementAmount)] : []),
    ...(t?.platformCommissionAmount ? [field('commission', t.platformCommissionAmount)] : []),
    ...(t?.transactionHash ? [field('tx hash', t.transactionHash)] : []),
    ...(t?.failureReason ? [field('reason', t.failureReason)] : []),
  ];
}

export const proofAnswer = z.object({
  proof: z.object({
    paymentId: z.string(),
    kind: z.string(),
    status: z.string(),
    verification: z.string(),
    network: z.string(),
    asset: z.string(),
    depositAddress: z.string().nullable(),
    expectedGross: z.string().nullable(),
    credited: z.string(),
    chain: z
      .object({ chainId: z.number(), token: z.string(), head: z.string(), confirmationsRequired: z.number(), balance: z.string() })
      .nullable(),
    chainError: z.string().nullable(),
    credits: z.array(
      z.object({
        transactionHash: z.string(),
        logIndex: z.number(),
        token: z.string(),
        asset: z.string().nullable(),
        amount: z.string(),
        blockNumber: z.string(),
        confirmations: z.string().nullable(),
        state: z.string(),
      }),
    ),
  }),
});

/** `proof SV_… completed`, then where the money had to arrive, what is there now, and each credited log. */
export function formatProof({ proof: p }: z.infer<typeof proofAnswer>): string[] {
  const c = p.chain;
  return [
    `proof ${p.paymentId} ${p.status} (${p.kind}, verification ${p.verification})`,
    field(
      'network',
      `${p.network}${c ? ` (chain id ${c.chainId}, head ${c.head}, ${c.confirmationsRequired} confirmations required)` : ''}`,
    ),
    ...(p.depositAddress ? [field('deposit', p.depositAddress)] : [field('deposit', "none: the provider's word is the proof")]),
    ...(c ? [field('token', `${p.asset} ${c.token}`), field('on chain', `${c.balance} ${p.asset} at the deposit address now`)] : []),
    ...(p.chainError ? [field('on chain', `unknown: ${p.chainError}`)] : []),
    field('expected', p.expectedGross === null ? 'not fixed yet' : `${p.expectedGross} ${p.asset}`),
    field('credited', `${p.credited} ${p.asset}`),
    ...(p.credits.length
      ? p.credits.map((l, i) =>
          field(
            i ? '' : 'logs',
            `${l.transactionHash}:${l.logIndex} ${l.amount} ${l.asset ?? `of token ${l.token}`} block ${l.blockNumber}${l.confirmations === null ? '' : `, ${l.confirmations} confirmations`}, ${l.state}`,
          ),
        )
      : [field('logs', 'none')]),
  ];
}

// This version's answers, read by the views above (lists and envelopes wrap the same views).
type _ServerViews = [
  Holds<ReadsServer<typeof walletView, typeof serverWalletView>>,
  Holds<ReadsServer<typeof apiKeyView, typeof serverApiKeyView>>,
  Holds<ReadsServer<typeof merchantView, typeof serverMerchantView>>,
  Holds<ReadsServer<typeof endpointView, typeof serverEndpointView>>,
  Holds<ReadsServer<typeof deliveryView, typeof serverDeliveryView>>,
  Holds<ReadsServer<typeof proofAnswer.shape.proof, typeof serverProofView>>,
  Holds<ReadsServer<typeof paymentAnswer.shape.payment, typeof serverPaymentView>>,
  Holds<ReadsServer<typeof paymentAnswer.shape.transaction, typeof serverTransactionSummary>>,
  Holds<ReadsServer<typeof paymentsView, typeof serverPaymentsView>>,
];
