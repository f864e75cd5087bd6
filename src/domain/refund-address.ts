import type { Address } from 'viem';
import { readEvmAddress, sameAddress, ZERO_ADDRESS } from './evm-address';

// Where an exception's money may go back. A transfer on chain cannot be
// taken back, so an address where the money would be burnt, or would land with the platform
// instead of the customer, is refused before anything is planned: by the service (422, before any
// workflow is touched), again by the refund update's validator (what it can know without I/O) and
// again by the planning activity (everything, non-retryable). Pure.
//
// Refused: not an address; an address without its EIP-55 checksum (all lowercase or all uppercase:
// nothing could catch a typo in it, and a typo sends the money where nobody can give it back) or with
// a wrong one; the zero address; the treasury; any configured token contract (on any network); any
// of our deposit addresses. Accepted: any other contract, because the customer's wallet may well be
// one (a Safe, a 4337 account, an EIP-7702 account all have code).

/** The failure type a refused refund address carries from a validator or an activity (422 in the envelope). */
export const REFUND_ADDRESS_REFUSED = 'RefundAddressRefused';

/** What the platform itself owns: money sent there never reaches the customer. */
export interface PlatformAddresses {
  treasury: string | null;
  /** Every configured token contract, on every network. */
  tokenContracts: readonly string[];
  /** The address is one of our deposit addresses (this payment's or any other's). */
  isDepositAddress: boolean;
}

export type RefundAddressCheck = { ok: true; address: Address } | { ok: false; message: string };

const refused = (message: string): RefundAddressCheck => ({ ok: false, message });

/**
 * The refund's destination, checksummed, or why it is refused. Without `platform` (the update's
 * validator, which does no I/O) only what the address itself says is checked.
 */
export function checkRefundAddress(value: unknown, platform?: PlatformAddresses): RefundAddressCheck {
  const read = typeof value === 'string' ? readEvmAddress(value) : { problem: 'shape' as const };
  if ('problem' in read) {
    return refused(
      read.problem === 'shape'
        ? 'The refund address must be an EVM address: 0x and 40 hex digits.'
        : 'The refund address fails its EIP-55 checksum (the case of its letters does not match): it has a typo. Copy it again from the customer.',
    );
  }
  const { address } = read;
  if (address !== value)
    return refused(
      `The refund address must carry its EIP-55 checksum (mixed case, as wallets show it: ${address}); an address without one cannot be checked for typos.`,
    );
  if (address === ZERO_ADDRESS) return refused('The refund address is the zero address: tokens sent there are burnt.');
  if (!platform) return { ok: true, address };
  if (platform.treasury && sameAddress(platform.treasury, address))
    return refused('The refund address is the platform’s treasury, not the customer’s wallet.');
  if (platform.tokenContracts.some((token) => sameAddress(token, address)))
    return refused('The refund address is a token contract: tokens sent there are lost.');
  if (platform.isDepositAddress)
    return refused('The refund address is one of the platform’s deposit addresses, not the customer’s wallet.');
  return { ok: true, address };
}
