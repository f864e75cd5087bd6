import { and, desc, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { sites } from '../schema';

export type SiteRow = typeof sites.$inferSelect;
export type SitePlatform = SiteRow['platform'];

/**
 * A website's origin as the connection key (one connection per website): scheme, host and
 * port, lowercased, default port dropped. Paths, queries and a trailing slash do not make another site.
 */
export function siteOrigin(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    return u.origin.toLowerCase();
  } catch {
    return null;
  }
}

export async function findSite(db: DatabaseOrTransaction, id: string): Promise<SiteRow | undefined> {
  const [row] = await db.select().from(sites).where(eq(sites.id, id));
  return row;
}

/** A merchant's own claim on a website (pending or connected); another merchant's is never returned. */
export async function findMerchantSite(db: DatabaseOrTransaction, origin: string, merchantId: string): Promise<SiteRow | undefined> {
  const [row] = await db
    .select()
    .from(sites)
    .where(and(eq(sites.origin, origin), eq(sites.merchantId, merchantId)));
  return row;
}

/**
 * A merchant's claim on a website: the first connect creates it (pending proof of control); a later
 * connect by the same merchant updates URLs, platform and version and keeps id, secret and token.
 * Claims of other merchants on the same origin are neither read nor touched. The insert-or-nothing
 * makes two concurrent first connects of one merchant agree on one row.
 */
export async function claimSite(
  db: DatabaseOrTransaction,
  input: {
    id: string;
    merchantId: string;
    origin: string;
    siteUrl: string;
    callbackUrl: string;
    platform: SitePlatform;
    pluginVersion: string;
    webhookSecretEncrypted: string;
    verificationToken: string;
  },
): Promise<{ site: SiteRow; created: boolean }> {
  const inserted = await db
    .insert(sites)
    .values({ ...input, status: 'pending_verification' })
    .onConflictDoNothing({ target: [sites.origin, sites.merchantId] })
    .returning();
  if (inserted[0]) return { site: inserted[0], created: true };
  const [updated] = await db
    .update(sites)
    .set({
      siteUrl: input.siteUrl,
      callbackUrl: input.callbackUrl,
      platform: input.platform,
      pluginVersion: input.pluginVersion,
      updatedAt: sql`now()`,
    })
    .where(and(eq(sites.origin, input.origin), eq(sites.merchantId, input.merchantId)))
    .returning();
  return { site: updated!, created: false };
}

/**
 * Marks a claim connected once its site has served the token. Null when another merchant's claim on
 * the origin is connected already (the partial unique index allows one connected row per origin).
 */
export async function markSiteVerified(db: DatabaseOrTransaction, id: string): Promise<SiteRow | null> {
  try {
    const [row] = await db
      .update(sites)
      .set({ status: 'connected', verifiedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(sites.id, id))
      .returning();
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: unknown };
  return e?.code === '23505' || (e?.cause !== undefined && e.cause !== err && isUniqueViolation(e.cause));
}

/** A merchant's websites, pending or connected, newest first. */
export async function listMerchantSites(db: DatabaseOrTransaction, merchantId: string): Promise<SiteRow[]> {
  return db.select().from(sites).where(eq(sites.merchantId, merchantId)).orderBy(desc(sites.createdAt), desc(sites.id));
}

/** Removes a merchant's claim on a website (scoped by merchant: another's id matches nothing). */
export async function deleteMerchantSite(db: DatabaseOrTransaction, merchantId: string, id: string): Promise<SiteRow | undefined> {
  const [row] = await db
    .delete(sites)
    .where(and(eq(sites.id, id), eq(sites.merchantId, merchantId)))
    .returning();
  return row;
}
