import { and, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { providerEvents } from '../schema';

export type ProviderEventRow = typeof providerEvents.$inferSelect;
type State = ProviderEventRow['state'];

/** Records a callback once; returns the stored row and whether this call inserted it. */
export async function recordProviderEvent(
  db: DatabaseOrTransaction,
  input: { provider: string; eventId: string; paymentId: string; type: string; payload: unknown; state: State; note?: string },
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
