import { getAddress, type Address } from 'viem';

// The one EVM address parser (config, wallets, refunds, the sandbox, and the refund update's
// validator in workflow code: pure, so it bundles there). EIP-55: the case of an address's hex
// letters is a checksum of the address, so a mixed-case address with one character wrong is
// refused; that is what catches a mistyped wallet before money is sent there.

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Tokens sent here are burnt: no key can ever move them (and ERC-20s revert a transfer to it). */
export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

/** Strict: exactly the EIP-55 checksummed form (what the config requires of token contracts). */
export function isEvmAddress(value: string): value is Address {
  return HEX_ADDRESS.test(value) && getAddress(value) === value;
}

/**
 * Lenient, for addresses people paste from wallets and explorers: an all-lowercase or all-uppercase
 * address carries no checksum and is accepted and checksummed; a mixed-case one must carry the right
 * checksum. Otherwise what is wrong with it: not an address at all, or a checksum that does not match.
 */
export function readEvmAddress(value: string): { address: Address } | { problem: 'shape' | 'checksum' } {
  if (!HEX_ADDRESS.test(value)) return { problem: 'shape' };
  const hex = value.slice(2);
  const checksummed = getAddress(value);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase() || checksummed === value) return { address: checksummed };
  return { problem: 'checksum' };
}

/** readEvmAddress's address, or null. */
export function parseEvmAddress(value: string): Address | null {
  const read = readEvmAddress(value);
  return 'address' in read ? read.address : null;
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
