import type { DbHandle } from '../../src/db/client';

/**
 * For tests of what follows the plugin handshake: a site claim marked connected as if the site had
 * served its verification token. The proof itself, over HTTP, is tested in test/plugin/site-proof.test.ts.
 */
export async function markSiteVerified(db: DbHandle, siteId: string): Promise<void> {
  const rows = await db.sql`update sites set status = 'connected', verified_at = now() where id = ${siteId} returning id`;
  if (rows.length !== 1) throw new Error(`no site ${siteId} to mark verified`);
}
