import ipaddr from 'ipaddr.js';
import { getDomain, getHostname } from 'tldts';

// Where we may send requests: https to hosts whose every address is public. Anything
// that reaches the service's own network (loopback, private, link-local, CGNAT, cloud metadata,
// and the IPv6 forms of all of them, every IPv4-embedding form included) is refused, at registration and again
// after DNS resolution at delivery time. ALLOW_PRIVATE_URLS lifts both rules for development.

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

// IANA's global unicast space. ipaddr.js calls every IPv6 address outside its named special ranges
// "unicast", including the deprecated IPv4-compatible ::/96 (::7f00:1 is 127.0.0.1 to some stacks),
// so an IPv6 address must also lie in 2000::/3 to count as public.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Whether an IP literal is a public unicast address. ipaddr.js names every special-purpose range
 * (loopback, private, linkLocal — where 169.254.169.254 metadata lives —, carrierGradeNat, uniqueLocal,
 * reserved, and for IPv6 the forms that embed an IPv4 address: rfc6052 NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, rfc6145, 6to4, teredo); only `unicast` is the public internet. IPv4-mapped IPv6
 * (::ffff:a.b.c.d) is judged as its IPv4, which is where the connection goes; the other embedded
 * forms are refused whole, as their IPv4 is reached through a translator we cannot see.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/** Shape checks done without DNS: scheme, credentials, literal addresses, local names. */
export function checkUrlShape(raw: string, options: { allowPrivate: boolean }): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must use http or https' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  if (options.allowPrivate) return { ok: true, url };
  if (url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host))
    return isPublicAddress(host) ? { ok: true, url } : { ok: false, reason: 'must not point at a private or local address' };
  if (!host.includes('.') || /\.(localhost|local|internal|lan|home|corp)$/i.test(host) || host.toLowerCase() === 'localhost') {
    return { ok: false, reason: 'must use a public host name' };
  }
  return { ok: true, url };
}

/** Every resolved address must be public: one private answer is enough to refuse (DNS rebinding). */
export function checkResolvedAddresses(addresses: string[], options: { allowPrivate: boolean }): UrlVerdict | null {
  if (options.allowPrivate) return null;
  if (addresses.length === 0) return { ok: false, reason: 'does not resolve' };
  const bad = addresses.find((a) => !isPublicAddress(a));
  return bad ? { ok: false, reason: `resolves to a non-public address (${bad})` } : null;
}

/** A plugin's callback_url must be on the site's host or share its registrable domain. */
export function isRelatedHost(callbackUrl: string, siteUrl: string): boolean {
  const a = getHostname(callbackUrl);
  const b = getHostname(siteUrl);
  if (!a || !b) return false;
  if (a === b) return true;
  // Private suffixes (github.io, herokuapp.com…) count: two tenants of one host are not related.
  const da = getDomain(callbackUrl, { allowPrivateDomains: true });
  const db = getDomain(siteUrl, { allowPrivateDomains: true });
  return da !== null && da === db;
}
