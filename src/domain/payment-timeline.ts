// A payment's story as its merchant reads it, one entry per fact, oldest first. Pure:
// the service reads the rows (session, provider facts, chain credits, events, payouts, exceptions,
// webhook deliveries) and this orders and words them, so what the page says is tested without I/O.

// Amounts as a sentence reads them, exact: at least two decimals, every significant one beyond.
import { formatCryptoAmount } from './money';

export type TimelineKind =
  'created' | 'pay_pressed' | 'provider' | 'credit' | 'status' | 'payout' | 'exception' | 'exception_resolved' | 'refund' | 'webhook';

export interface TimelineEntry {
  at: string;
  kind: TimelineKind;
  title: string;
  detail: string | null;
  /** An on-chain transfer this entry is about, with its explorer page where the network has one. */
  transactionHash: string | null;
  explorerUrl: string | null;
  /** Confirmations of a credit at the chain's head now (null when the head was not read). */
  confirmations: string | null;
  /** The webhook delivery (kind `webhook`) or exception (`exception`, `exception_resolved`, `refund`) it is about. */
  ref: string | null;
}

export interface TimelineInput {
  session: {
    createdAt: Date;
    payPressedAt: Date | null;
    provider: string;
    railType: string;
    asset: string;
    network: string;
  };
  providerFacts: { type: string; receivedAt: Date; state: string; note: string | null }[];
  credits: {
    transactionHash: string;
    amountMicro: bigint;
    state: string;
    createdAt: Date;
    asset: string | null;
    fromAddress: string;
    blockNumber: bigint;
  }[];
  /** The payment's events (status changes, settlement, exceptions, refunds), as sent to the merchant. */
  events: { id: string; type: string; subject: string; createdAt: Date }[];
  payouts: {
    id: string;
    kind: string;
    status: string;
    amount: string;
    toAddress: string;
    txHash: string | null;
    exceptionId: string | null;
    failureReason: string | null;
    createdAt: Date;
    confirmedAt: Date | null;
  }[];
  exceptions: { id: string; kind: string; amountMicro: bigint; status: string; createdAt: Date; resolvedAt: Date | null }[];
  deliveries: { id: string; eventId: string; eventType: string; url: string; status: string; createdAt: Date; attempts: number }[];
  /** The chain's head now, for confirmations; null when it was not read. */
  head: bigint | null;
  explorer: (hash: string) => string | null;
}

const entry = (
  at: Date,
  kind: TimelineKind,
  title: string,
  more: Partial<Omit<TimelineEntry, 'at' | 'kind' | 'title'>> = {},
): TimelineEntry => ({
  at: at.toISOString(),
  kind,
  title,
  detail: null,
  transactionHash: null,
  explorerUrl: null,
  confirmations: null,
  ref: null,
  ...more,
});

const CREDIT_STATES: Record<string, string> = {
  credited: 'credited to the payment',
  held: 'held for an exception',
  wrong_asset: 'another token: held for an exception',
  dust: 'dust: recorded, not credited',
  removed: 'its block left the chain: no longer counted',
};

const STATUS_EVENTS: Record<string, string> = {
  'payment.processing': 'Processing: the provider took the payment',
  'payment.completed': 'Completed: the money is proven on chain',
  'payment.failed': 'Failed',
  'payment.expired': 'Expired',
  'payment.canceled': 'Canceled',
  'payment.settled': 'Settled: your payout is confirmed on chain',
};

const PAYOUT_KINDS: Record<string, string> = {
  sweep: 'Swept to the platform’s treasury',
  merchant: 'Payout to your wallet',
  refund: 'Refund to the customer',
  payment_refund: 'Refund to the customer',
};

export function paymentTimeline(input: TimelineInput): TimelineEntry[] {
  const { session } = input;
  const entries: TimelineEntry[] = [entry(session.createdAt, 'created', 'Checkout session created')];
  if (session.payPressedAt) {
    entries.push(entry(session.payPressedAt, 'pay_pressed', 'The customer pressed Pay', { detail: `provider: ${session.provider}` }));
  }
  for (const f of input.providerFacts) {
    entries.push(entry(f.receivedAt, 'provider', `Provider: ${f.type}`, { detail: f.note ? `${f.state}: ${f.note}` : f.state }));
  }
  for (const c of input.credits) {
    // As the watcher counts them: the log's own block is the first confirmation.
    const confirmations = input.head !== null && input.head >= c.blockNumber ? (input.head - c.blockNumber + 1n).toString() : null;
    entries.push(
      entry(c.createdAt, 'credit', `Transfer of ${formatCryptoAmount(c.amountMicro)} ${c.asset ?? 'of an unknown token'} arrived`, {
        detail: `from ${c.fromAddress}: ${CREDIT_STATES[c.state] ?? c.state}`,
        transactionHash: c.transactionHash,
        explorerUrl: input.explorer(c.transactionHash),
        confirmations,
      }),
    );
  }
  for (const e of input.events) {
    const title = STATUS_EVENTS[e.type];
    if (title) entries.push(entry(e.createdAt, 'status', title));
  }
  for (const p of input.payouts) {
    const amount = formatCryptoAmount(BigInt(p.amount));
    const name = `${PAYOUT_KINDS[p.kind] ?? p.kind}: ${amount} ${session.asset}`;
    const hash = p.status === 'confirmed' ? p.txHash : null;
    const detail =
      p.status === 'failed'
        ? `failed: ${p.failureReason ?? 'no reason recorded'}`
        : p.status === 'confirmed'
          ? `confirmed, to ${p.toAddress}`
          : `${p.status}, to ${p.toAddress}`;
    entries.push(
      entry(p.confirmedAt ?? p.createdAt, p.kind === 'refund' || p.kind === 'payment_refund' ? 'refund' : 'payout', name, {
        detail,
        transactionHash: hash,
        explorerUrl: hash ? input.explorer(hash) : null,
        ref: p.exceptionId,
      }),
    );
  }
  for (const x of input.exceptions) {
    entries.push(
      entry(x.createdAt, 'exception', `Exception (${x.kind}): ${formatCryptoAmount(x.amountMicro)}`, {
        ref: x.id,
        detail: `status: ${x.status}`,
      }),
    );
    if (x.resolvedAt && x.status !== 'open') {
      entries.push(entry(x.resolvedAt, 'exception_resolved', `Exception ${x.status}`, { ref: x.id }));
    }
  }
  for (const d of input.deliveries) {
    entries.push(
      entry(d.createdAt, 'webhook', `Webhook ${d.eventType}`, {
        detail: `${d.status} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}, to ${d.url}`,
        ref: d.id,
      }),
    );
  }
  // Oldest first; at the same instant, in the order a payment lives (creation before Pay before facts…).
  const order: TimelineKind[] = [
    'created',
    'pay_pressed',
    'provider',
    'credit',
    'status',
    'exception',
    'payout',
    'refund',
    'exception_resolved',
    'webhook',
  ];
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.localeCompare(b.e.at) || order.indexOf(a.e.kind) - order.indexOf(b.e.kind) || a.i - b.i)
    .map(({ e }) => e);
}
