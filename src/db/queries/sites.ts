import { and, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { sites } from '../schema';

export type SiteRow = typeof sites.$inferSelect;
export type SitePlatform = SiteRow['platform'];

/**
 * A website's origin as the connection key (spec §2.7: one connection per website): scheme, host and
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

export async function findSiteByOrigin(db: DatabaseOrTransaction, origin: string): Promise<SiteRow | undefined> {
  const [row] = await db.select().from(sites).where(eq(sites.origin, origin));
  return row;
}

/**
 * Connects a website, or reconnects it: the first writer of an origin creates the row; a later
 * connect by the same merchant updates URLs, platform and version and keeps id and secret. Returns
 * the row as it now stands; a row owned by another merchant is returned untouched for the caller to
 * refuse. The insert-or-nothing makes two concurrent first connects agree on one row.
 */
export async function connectSite(
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
  },
): Promise<{ site: SiteRow; created: boolean }> {
  const inserted = await db.insert(sites).values(input).onConflictDoNothing({ target: sites.origin }).returning();
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
  if (updated) return { site: updated, created: false };
  return { site: (await findSiteByOrigin(db, input.origin))!, created: false };
}
