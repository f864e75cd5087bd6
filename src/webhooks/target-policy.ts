import { lookup } from 'node:dns/promises';
import { checkResolvedAddresses, checkUrlShape } from '../domain/url-policy';

/**
 * The URL policy at registration: shape first, then every address the host resolves
 * to. Delivery checks again (src/webhooks/post.ts), since DNS answers change.
 */
export async function checkWebhookTarget(url: string, allowPrivate: boolean): Promise<string | null> {
  const shape = checkUrlShape(url, { allowPrivate });
  if (!shape.ok) return `URL ${shape.reason}`;
  if (allowPrivate) return null;
  let addresses: string[];
  try {
    addresses = (await lookup(shape.url.hostname.replace(/^\[|\]$/g, ''), { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return 'URL host does not resolve';
  }
  const verdict = checkResolvedAddresses(addresses, { allowPrivate });
  return verdict && !verdict.ok ? `URL host ${verdict.reason}` : null;
}
