import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { chainCredits, chainCursors, checkoutSessions, paymentExceptions, providerEvents } from '../schema';

// What a customer's page shows of a batch of checkout sessions, in five reads whatever the batch's
// size: the live status streams ask for every watched session at once (api/live-status.ts).

export interface CustomerStatusRows {
  sessions: {
    id: string;
    status: (typeof checkoutSessions.$inferSelect)['status'];
    network: string;
    destinationAsset: string;
    verification: 'chain' | 'provider';
    depositAddress: string | null;
    expectedGrossMicro: bigint | null;
  }[];
  /** Confirmed money of each session's own token (state `credited`). */
  credited: Map<string, bigint>;
  /** Money off the happy path that is not the payment (accepted exceptions are), oldest first. */
  exceptions: { paymentId: string; kind: string; status: string; amountMicro: bigint }[];
  /** Each network's watcher cursor as stored (its unconfirmed transfers) and the head it last read. */
  cursors: Map<string, { cursor: string; head: bigint | null }>;
  /** The type of each session's latest recorded provider event (`payment.failed`: the last attempt was declined). */
  lastProviderEvent: Map<string, string>;
}

export async function readCustomerStatusRows(db: DatabaseOrTransaction, ids: readonly string[]): Promise<CustomerStatusRows> {
  if (ids.length === 0) return { sessions: [], credited: new Map(), exceptions: [], cursors: new Map(), lastProviderEvent: new Map() };
  const list = [...ids];
  const [sessions, credits, exceptions, providerFacts] = await Promise.all([
    db
      .select({
        id: checkoutSessions.id,
        status: checkoutSessions.status,
        network: checkoutSessions.network,
        destinationAsset: checkoutSessions.destinationAsset,
        verification: checkoutSessions.verification,
        depositAddress: checkoutSessions.depositAddress,
        expectedGrossMicro: checkoutSessions.expectedGrossMicro,
      })
      .from(checkoutSessions)
      .where(inArray(checkoutSessions.id, list)),
    db
      .select({ paymentId: chainCredits.paymentId, total: sql<string>`sum(${chainCredits.amountMicro})::text` })
      .from(chainCredits)
      .where(and(inArray(chainCredits.paymentId, list), eq(chainCredits.state, 'credited')))
      .groupBy(chainCredits.paymentId),
    db
      .select({
        paymentId: paymentExceptions.paymentId,
        kind: paymentExceptions.kind,
        status: paymentExceptions.status,
        amountMicro: paymentExceptions.amountMicro,
      })
      .from(paymentExceptions)
      .where(and(inArray(paymentExceptions.paymentId, list), ne(paymentExceptions.status, 'accepted')))
      .orderBy(asc(paymentExceptions.createdAt), asc(paymentExceptions.id)),
    // Each session's latest provider event by arrival: a `payment.failed` there is a decline the page offers to retry.
    db
      .selectDistinctOn([providerEvents.paymentId], { paymentId: providerEvents.paymentId, type: providerEvents.type })
      .from(providerEvents)
      .where(inArray(providerEvents.paymentId, list))
      .orderBy(providerEvents.paymentId, desc(providerEvents.receivedAt)),
  ]);
  const networks = [...new Set(sessions.filter((s) => s.depositAddress !== null).map((s) => s.network))];
  const cursors =
    networks.length === 0
      ? []
      : await db
          .select({ network: chainCursors.network, cursor: chainCursors.cursor, head: chainCursors.head })
          .from(chainCursors)
          .where(inArray(chainCursors.network, networks));
  return {
    sessions,
    credited: new Map(credits.map((c) => [c.paymentId, BigInt(c.total)])),
    exceptions,
    cursors: new Map(cursors.map((c) => [c.network, { cursor: c.cursor, head: c.head }])),
    lastProviderEvent: new Map(providerFacts.map((e) => [e.paymentId, e.type])),
  };
}
