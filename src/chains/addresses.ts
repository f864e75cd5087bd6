import { getAddress, type Address } from 'viem';

// EIP-55: the case of an EVM address's hex letters is a checksum of the address. A mixed-case
// address with one character wrong is refused; this is what catches a mistyped settlement wallet
// before money is sent there.

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Strict: exactly the EIP-55 checksummed form (what the config and the operator surface require). */
export function isEvmAddress(value: string): value is Address {
  return HEX_ADDRESS.test(value) && getAddress(value) === value;
}

/**
 * Lenient, for addresses people paste from wallets: an all-lowercase or all-uppercase address carries
 * no checksum and is accepted and checksummed; a mixed-case one must carry the right checksum.
 * Returns null for anything else.
 */
export function parseEvmAddress(value: string): Address | null {
  if (!HEX_ADDRESS.test(value)) return null;
  const hex = value.slice(2);
  const checksummed = getAddress(value);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return checksummed;
  return checksummed === value ? checksummed : null;
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
