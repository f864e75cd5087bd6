import { and, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { providerEvents } from '../schema';

export type ProviderEventRow = typeof providerEvents.$inferSelect;
type State = ProviderEventRow['state'];
/** A callback's event as stored, without its state. */
export type ProviderEventRecord = { provider: string; eventId: string; paymentId: string; type: string; payload: unknown };

/** Records a callback once; returns the stored row and whether this call inserted it. */
export async function recordProviderEvent(
  db: DatabaseOrTransaction,
  input: ProviderEventRecord & { state: State; note?: string },
): Promise<{ row: ProviderEventRow; inserted: boolean }> {
  const inserted = await db
    .insert(providerEvents)
    .values({ ...input, note: input.note ?? null })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { row: inserted[0], inserted: true };
  const [row] = await db
    .select()
    .from(providerEvents)
    .where(and(eq(providerEvents.provider, input.provider), eq(providerEvents.eventId, input.eventId)));
  return { row: row!, inserted: false };
}

/**
 * A callback whose fact its workflow has been handed: recorded `signaled` in one statement, whether
 * it is new or was left `received` by an earlier delivery that stopped before its signal. False when
 * it was already past `received` (a repeat: the workflow drops the fact it has seen).
 */
export async function recordSignaledEvent(db: DatabaseOrTransaction, input: ProviderEventRecord): Promise<boolean> {
  const rows = await db
    .insert(providerEvents)
    .values({ ...input, state: 'signaled', note: null })
    .onConflictDoUpdate({
      target: [providerEvents.provider, providerEvents.eventId],
      set: { state: 'signaled', updatedAt: sql`now()` },
      setWhere: eq(providerEvents.state, 'received'),
    })
    .returning({ provider: providerEvents.provider });
  return rows.length > 0;
}

export async function setProviderEventState(
  db: DatabaseOrTransaction,
  key: { provider: string; eventId: string },
  state: State,
  note?: string,
): Promise<void> {
  await db
    .update(providerEvents)
    .set({ state, updatedAt: sql`now()`, ...(note === undefined ? {} : { note }) })
    .where(and(eq(providerEvents.provider, key.provider), eq(providerEvents.eventId, key.eventId)));
}

export async function listProviderEvents(db: DatabaseOrTransaction, paymentId: string): Promise<ProviderEventRow[]> {
  return db.select().from(providerEvents).where(eq(providerEvents.paymentId, paymentId)).orderBy(providerEvents.receivedAt);
}
