import { and, eq, isNull, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { apiKeys, merchants } from '../schema';
import { preparedFor } from './prepared';
import type { Scope } from '../../domain/scopes';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(
  db: DatabaseOrTransaction,
  input: {
    id: string;
    merchantId: string;
    kind: 'live' | 'restricted';
    keyHash: string;
    displayPrefix: string;
    last4: string;
    scopes: Scope[];
  },
): Promise<ApiKeyRow> {
  const [row] = await db.insert(apiKeys).values(input).returning();
  return row!;
}

export async function listApiKeys(db: DatabaseOrTransaction, merchantId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.merchantId, merchantId)).orderBy(apiKeys.createdAt);
}

/** The live key currently in force (not revoked, not already on its way out after a rotation). */
export async function findCurrentLiveKey(db: DatabaseOrTransaction, merchantId: string) {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.kind, 'live'), isNull(apiKeys.revokedAt), isNull(apiKeys.expiresAt)))
    .for('update');
  return row;
}

export async function setKeyExpiry(db: DatabaseOrTransaction, id: string, expiresAt: Date): Promise<void> {
  await db.update(apiKeys).set({ expiresAt }).where(eq(apiKeys.id, id));
}

/** Key and owning merchant by key hash, for authentication (every authenticated request: prepared). */
export async function findKeyByHash(db: DatabaseOrTransaction, keyHash: string) {
  const query = preparedFor(db, 'find_key_by_hash', () =>
    db
      .select({ key: apiKeys, merchant: merchants })
      .from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
      .prepare('find_key_by_hash'),
  );
  const [row] = await query.execute({ keyHash });
  return row;
}

/** Records a key's last use; coarse on purpose: a minute's precision is all an operator needs. */
export async function touchKey(db: DatabaseOrTransaction, id: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.id, id), sql`(${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '1 minute')`));
}

/** Revokes a key of the merchant at once (a leaked key cannot wait for a rotation's grace period). */
export async function revokeApiKey(db: DatabaseOrTransaction, merchantId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, merchantId)))
    .returning();
  return row;
}
