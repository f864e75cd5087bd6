import { isIPv6 } from 'node:net';

// What the dashboard's rate limits count as one client and one inbox. A limit keyed on the exact
// value is no limit for whoever can vary it freely: one IPv6 host is commonly given a whole /64,
// and one inbox receives every `name+anything@` form of its address.

/**
 * The client address as a limit counts it: an IPv6 address by its /64 (its first four groups), an
 * IPv4 address, or an IPv4 address mapped into IPv6, as it is.
 */
export function clientAddressBlock(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const bare = ip.split('%', 1)[0]!.toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return mapped[1]!;
  // A dotted IPv4 tail fills the last two groups; only the first four matter here.
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const [head = '', tail] = bare.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * The inbox an address reaches, for limits on mail sent to it: `name+tag@domain` (RFC 5233
 * subaddressing, which the large providers deliver to `name@domain`) counts as `name@domain`.
 * Expects an address already trimmed and lower-cased.
 */
export function mailboxAddress(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return email;
  const local = email.slice(0, at);
  const plus = local.indexOf('+');
  // A quoted local part is one name, + and all.
  return plus > 0 && !local.startsWith('"') ? `${local.slice(0, plus)}${email.slice(at)}` : email;
}
