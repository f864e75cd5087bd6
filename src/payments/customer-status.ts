import type { ChainNetworkConfig } from '../config';
import { readCustomerStatusRows, type CustomerStatusRows } from '../db/queries/customer-status';
import { findPaymentLinks } from '../db/queries/payment-links';
import { findSimpleOrders } from '../db/queries/simple-orders';
import { formatCrypto } from '../domain/money';
import type { PaymentContext } from './context';
import { linkStatus } from './payment-links';
import type { SimpleOrderRow } from './rows';

/**
 * What the customer's page says of a checkout session (customer-facing fields only),
 * from Postgres: the first render and every server-sent event are this one reading.
 */
export interface CustomerStatus {
  id: string;
  status: CustomerStatusRows['sessions'][number]['status'];
  /** Confirmed money of the session's token at its deposit address (6 decimals); null without a chain verifier. */
  received: string | null;
  /** Open and partly paid: what is still to send, to the same address. */
  remaining: string | null;
  /** A transfer of the session's token seen at its deposit address and not yet confirmed: its confirmations, of `requiredConfirmations`. */
  confirmations: number | null;
  requiredConfirmations: number | null;
  /** The latest money that arrived off the happy path and is not the payment (late, duplicate, underpaid, overpaid…), with where it stands. */
  exception: { kind: string; status: string; amount: string } | null;
  /**
   * Open and the provider declined the last attempt: the page offers "Try again". A decline leaves the
   * status `pending`, so without this a tab drawn just before the decline was recorded would go on
   * saying the payment is being confirmed.
   */
  declined: boolean;
}

interface PendingTransfer {
  asset: string | null;
  to: string;
  blockNumber: string;
}

/** The statuses of the sessions that exist and are visible; a missing id is absent from the map. */
export async function customerStatuses(
  ctx: Pick<PaymentContext, 'db' | 'config'>,
  ids: readonly string[],
): Promise<Map<string, CustomerStatus>> {
  const rows = await readCustomerStatusRows(ctx.db, ids);
  const pendingByNetwork = new Map<string, { head: bigint; pending: PendingTransfer[] }>();
  for (const [network, { cursor, head }] of rows.cursors) {
    if (head === null) continue;
    try {
      // The watcher's stored cursor (chains/watcher.ts, cursorToJson): its transfers not yet confirmed.
      const parsed = JSON.parse(cursor) as { pending?: PendingTransfer[] };
      pendingByNetwork.set(network, { head, pending: parsed.pending ?? [] });
    } catch {
      // A cursor this code cannot read shows no confirmations; the status itself is still right.
    }
  }
  const out = new Map<string, CustomerStatus>();
  for (const s of rows.sessions) {
    const chain = ctx.config.chains.networks.find((n: ChainNetworkConfig) => n.network === s.network);
    const onChain = s.verification === 'chain' && s.depositAddress !== null;
    const credited = rows.credited.get(s.id) ?? 0n;
    const open = s.status === 'pending' || s.status === 'processing';
    const expected = s.expectedGrossMicro;
    const partly = open && onChain && expected !== null && credited > 0n && credited < expected;

    let confirmations: number | null = null;
    const seen = onChain && open ? pendingByNetwork.get(s.network) : undefined;
    if (seen && chain) {
      const address = s.depositAddress!.toLowerCase();
      for (const p of seen.pending) {
        if (p.to.toLowerCase() !== address || p.asset !== s.destinationAsset) continue;
        const n = seen.head >= BigInt(p.blockNumber) ? Number(seen.head - BigInt(p.blockNumber) + 1n) : 0;
        confirmations = confirmations === null ? n : Math.min(confirmations, n);
      }
    }
    const last = rows.exceptions.filter((e) => e.paymentId === s.id).at(-1);
    out.set(s.id, {
      id: s.id,
      status: s.status,
      received: onChain ? formatCrypto(credited) : null,
      remaining: partly ? formatCrypto(expected - credited) : null,
      confirmations: confirmations === null ? null : Math.min(confirmations, chain!.confirmations),
      requiredConfirmations: confirmations === null ? null : chain!.confirmations,
      exception: last ? { kind: last.kind, status: last.status, amount: formatCrypto(last.amountMicro) } : null,
      declined: s.status === 'pending' && rows.lastProviderEvent.get(s.id) === 'payment.failed',
    });
  }
  return out;
}

export async function customerStatus(ctx: Pick<PaymentContext, 'db' | 'config'>, id: string): Promise<CustomerStatus | undefined> {
  return (await customerStatuses(ctx, [id])).get(id);
}

/** What a payment link's page says of it: whether it can be paid (its clock counts, as on the page). */
export interface LinkPageStatus {
  id: string;
  status: 'active' | 'paid' | 'expired';
}

export async function linkPageStatuses(
  ctx: Pick<PaymentContext, 'db' | 'now'>,
  ids: readonly string[],
): Promise<Map<string, LinkPageStatus>> {
  const now = ctx.now();
  return new Map((await findPaymentLinks(ctx.db, ids)).map((l) => [l.id, { id: l.id, status: linkStatus(l, now) }]));
}

/** What a simple order's page says of it: its status, and whether its payout has left (settled on chain, then paid out). */
export interface OrderPageStatus {
  transactionCode: string;
  status: SimpleOrderRow['status'];
  payoutSent: boolean;
}

export async function orderPageStatuses(ctx: Pick<PaymentContext, 'db'>, codes: readonly string[]): Promise<Map<string, OrderPageStatus>> {
  const rows = await findSimpleOrders(ctx.db, codes);
  return new Map(
    rows.map((o) => [o.transactionCode, { transactionCode: o.transactionCode, status: o.status, payoutSent: o.payoutDispatched }]),
  );
}
