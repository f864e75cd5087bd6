import { InvalidArgumentError } from 'commander';

// Option parsers: only the shape a request needs. Whether a value is acceptable (asset names, address
// checksums, scopes, ranges) is the API's call, so the CLI never disagrees with the deployment it calls.
// Throwing InvalidArgumentError makes commander report the option by name, as a usage error.

export function wholeNumber(raw: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new InvalidArgumentError('must be a whole number.');
  return Number(raw);
}

export function positiveSeconds(raw: string): number {
  const n = wholeNumber(raw);
  if (n < 1) throw new InvalidArgumentError('must be at least 1 (seconds).');
  return n;
}

export interface WalletValue {
  asset: string;
  network: string;
  address: string;
}

/** `ASSET:NETWORK:ADDRESS`, repeatable: each use adds one wallet. */
export function wallets(raw: string, previous: unknown): WalletValue[] {
  // The address goes last so that it may contain anything, colons included.
  const match = /^([^:]+):([^:]+):(.+)$/.exec(raw);
  if (!match) throw new InvalidArgumentError('must be ASSET:NETWORK:ADDRESS.');
  return [...((previous as WalletValue[] | undefined) ?? []), { asset: match[1]!, network: match[2]!, address: match[3]! }];
}

/** `scope[,scope…]`, spaces allowed around commas. */
export function scopes(raw: string): string[] {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.length) throw new InvalidArgumentError('needs at least one scope.');
  return list;
}
