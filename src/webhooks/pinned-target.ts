import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { checkResolvedAddresses, checkUrlShape } from '../domain/url-policy';

export type ResolvedTarget =
  | { ok: true; url: URL; lookup: LookupFunction }
  | { ok: false; error: string; /** A refusal by the URL policy: retrying cannot help. */ refused: boolean };

/**
 * The URL policy for an outgoing request, checked after DNS resolution, with a lookup function that
 * pins the connection to the address that was checked, so a DNS answer that changes between check
 * and connect cannot reach an internal host.
 */
export async function resolveTarget(rawUrl: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const shape = checkUrlShape(rawUrl, { allowPrivate });
  if (!shape.ok) return { ok: false, error: `refused: URL ${shape.reason}`, refused: true };
  const url = shape.url;
  const host = url.hostname.replace(/^\[|\]$/g, '');

  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (err) {
    return { ok: false, error: `DNS lookup failed: ${(err as Error).message}`, refused: false };
  }
  const verdict = checkResolvedAddresses(
    addresses.map((a) => a.address),
    { allowPrivate },
  );
  if (verdict && !verdict.ok) return { ok: false, error: `refused: host ${verdict.reason}`, refused: true };
  const pinned = addresses[0]!;
  const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  return { ok: true, url, lookup: pinnedLookup };
}
