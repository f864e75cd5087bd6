import { and, eq, lt, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { idempotencyKeys } from '../schema';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

const RETENTION = sql`interval '24 hours'`;
// A request that has held its key this long without finishing died with its process: every call a
// request makes to Temporal or a provider is bounded well below it (payments/temporal-call.ts).
const ABANDONED_AFTER = sql`interval '30 seconds'`;

/**
 * Claims (merchant, key) for this request. Returns null when claimed, or the existing row:
 * expired rows and rows abandoned mid-request are taken over.
 */
export async function claimIdempotencyKey(
  db: DatabaseOrTransaction,
  input: { merchantId: string; key: string; route: string; requestHash: string },
): Promise<IdempotencyRow | null> {
  const claimed = await db
    .insert(idempotencyKeys)
    .values({ ...input, state: 'in_progress', expiresAt: sql`now() + ${RETENTION}` })
    .onConflictDoUpdate({
      target: [idempotencyKeys.merchantId, idempotencyKeys.key],
      set: {
        route: input.route,
        requestHash: input.requestHash,
        state: 'in_progress',
        responseStatus: null,
        responseBody: null,
        createdAt: sql`now()`,
        expiresAt: sql`now() + ${RETENTION}`,
      },
      setWhere: sql`${idempotencyKeys.expiresAt} < now() or (${idempotencyKeys.state} = 'in_progress' and ${idempotencyKeys.createdAt} < now() - ${ABANDONED_AFTER} and ${idempotencyKeys.requestHash} = ${input.requestHash})`,
    })
    .returning({ key: idempotencyKeys.key });
  if (claimed.length > 0) return null;
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.merchantId, input.merchantId), eq(idempotencyKeys.key, input.key)));
  return row ?? null;
}

export async function completeIdempotencyKey(
  db: DatabaseOrTransaction,
  key: { merchantId: string; key: string },
  response: { status: number; body: unknown },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ state: 'completed', responseStatus: response.status, responseBody: response.body })
    .where(and(eq(idempotencyKeys.merchantId, key.merchantId), eq(idempotencyKeys.key, key.key)));
}

/** Frees the key after a failure that did nothing (5xx), so the client's retry runs afresh. */
export async function releaseIdempotencyKey(db: DatabaseOrTransaction, key: { merchantId: string; key: string }): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.merchantId, key.merchantId), eq(idempotencyKeys.key, key.key), eq(idempotencyKeys.state, 'in_progress')));
}

export async function purgeExpiredIdempotencyKeys(db: DatabaseOrTransaction): Promise<number> {
  const rows = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, sql`now()`))
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}
