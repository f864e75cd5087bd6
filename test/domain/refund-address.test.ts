import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { readEvmAddress, ZERO_ADDRESS } from '../../src/domain/evm-address';
import { checkRefundAddress, type PlatformAddresses } from '../../src/domain/refund-address';

// Where an exception's money may go back, decided before anything is planned.
const CUSTOMER = '0x52908400098527886E0F7030069857D2E4169EE7';
const TREASURY = getAddress('0x8617e340b3d01fa5f11f306f4090fd50e238070d');
// As configuration may list it: the comparison ignores case.
const TOKEN_LISTED = '0xde709f2102306220921060314715629080e2fb77';
const TOKEN = getAddress(TOKEN_LISTED);
const platform: PlatformAddresses = { treasury: TREASURY, tokenContracts: [TOKEN_LISTED], isDepositAddress: false };

describe('checkRefundAddress', () => {
  it('accepts a checksummed customer address, and refuses one without its checksum (all lowercase or all uppercase), naming the checksummed form', () => {
    expect(checkRefundAddress(CUSTOMER, platform)).toEqual({ ok: true, address: CUSTOMER });
    const other = getAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359');
    for (const [given, checksummed] of [
      [CUSTOMER.toLowerCase(), CUSTOMER],
      [other.toLowerCase(), other],
      [`0x${other.slice(2).toUpperCase()}`, other],
    ]) {
      expect(checkRefundAddress(given, platform), given).toEqual({
        ok: false,
        message: expect.stringContaining(`must carry its EIP-55 checksum (mixed case, as wallets show it: ${checksummed})`),
      });
    }
  });

  it('refuses what is not an address, and a mixed-case address whose EIP-55 checksum is wrong (a typo)', () => {
    for (const given of [undefined, 42, '', '0x', '0xabc', `${CUSTOMER}0`, CUSTOMER.slice(2), `0x${'g'.repeat(40)}`]) {
      expect(checkRefundAddress(given, platform), String(given)).toEqual({
        ok: false,
        message: expect.stringContaining('must be an EVM address'),
      });
    }
    // The last letter's case flipped.
    expect(checkRefundAddress('0x52908400098527886E0F7030069857D2E4169Ee7', platform)).toEqual({
      ok: false,
      message: expect.stringContaining('EIP-55 checksum'),
    });
    expect(readEvmAddress('0x52908400098527886E0F7030069857D2E4169Ee7')).toEqual({ problem: 'checksum' });
  });

  it('refuses the zero address even without the platform’s addresses (the update validator’s check)', () => {
    expect(checkRefundAddress(ZERO_ADDRESS)).toEqual({ ok: false, message: expect.stringContaining('zero address') });
    expect(checkRefundAddress(ZERO_ADDRESS, platform)).toEqual({ ok: false, message: expect.stringContaining('zero address') });
    expect(checkRefundAddress(TREASURY)).toEqual({ ok: true, address: TREASURY });
  });

  it('refuses the treasury, a configured token contract (however configuration spells it) and a deposit address of ours', () => {
    expect(checkRefundAddress(TREASURY, platform)).toEqual({ ok: false, message: expect.stringContaining('treasury') });
    expect(checkRefundAddress(TOKEN, platform)).toEqual({ ok: false, message: expect.stringContaining('token contract') });
    expect(checkRefundAddress(CUSTOMER, { ...platform, isDepositAddress: true })).toEqual({
      ok: false,
      message: expect.stringContaining('deposit addresses'),
    });
    expect(checkRefundAddress(CUSTOMER, { treasury: null, tokenContracts: [], isDepositAddress: false })).toEqual({
      ok: true,
      address: CUSTOMER,
    });
  });
});
