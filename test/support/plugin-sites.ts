import type { FastifyInstance } from 'fastify';
import { randomBase62 } from '../../src/domain/ids';
import type { DbHandle } from '../../src/db/client';

/**
 * For tests of what follows the plugin handshake: a site claim marked connected as if the site had
 * served its verification token. The proof itself, over HTTP, is tested in test/plugin/site-proof.test.ts.
 */
export async function markSiteVerified(db: DbHandle, siteId: string): Promise<void> {
  const rows = await db.sql`update sites set status = 'connected', verified_at = now() where id = ${siteId} returning id`;
  if (rows.length !== 1) throw new Error(`no site ${siteId} to mark verified`);
}

export interface PluginMerchant {
  id: string;
  apiKey: string;
  securityCode: string;
}

// Each request speaks from its own address, so the per-IP limit of one test never touches another.
let lastOctet = 0;
export const freshIp = () => `198.51.100.${++lastOctet}`;

export const freshSite = () => `https://shop-${randomBase62(8).toLowerCase()}.example`;

/** A valid connect body for a fresh website of `m`, with `overrides`. */
export function connectBody(m: PluginMerchant, overrides: Record<string, unknown> = {}) {
  const site = (overrides.site_url as string | undefined) ?? freshSite();
  return {
    merchant_id: m.id,
    api_key: m.apiKey,
    security_code: m.securityCode,
    platform: 'woocommerce',
    site_url: site,
    callback_url: `${site}/?wc-api=svc_webhook`,
    plugin_version: '1.1.0',
    ...overrides,
  };
}

export function pluginConnect(app: FastifyInstance, body: unknown, options: { ip?: string; headers?: Record<string, string> } = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/plugin/connect',
    payload: body as object,
    remoteAddress: options.ip ?? freshIp(),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}
