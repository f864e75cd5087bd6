import { describe, expect, it } from 'vitest';
import { readEvmAddress, ZERO_ADDRESS } from '../../src/domain/evm-address';
import { checkRefundAddress, type PlatformAddresses } from '../../src/domain/refund-address';

// Decisions §12, refund: where an exception's money may go back, decided before anything is planned.
const CUSTOMER = '0x52908400098527886E0F7030069857D2E4169EE7';
const TREASURY = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const TOKEN = '0xde709f2102306220921060314715629080e2fb77';
const platform: PlatformAddresses = { treasury: TREASURY, tokenContracts: [TOKEN], isDepositAddress: false };

describe('checkRefundAddress', () => {
  it('accepts a customer address checksummed, all lowercase or all uppercase, and answers it checksummed', () => {
    for (const given of [CUSTOMER, CUSTOMER.toLowerCase(), `0x${CUSTOMER.slice(2).toUpperCase()}`]) {
      expect(checkRefundAddress(given, platform), given).toEqual({ ok: true, address: CUSTOMER });
    }
  });

  it('refuses what is not an address, and a mixed-case address whose EIP-55 checksum is wrong (a typo)', () => {
    for (const given of [undefined, 42, '', '0x', '0xabc', `${CUSTOMER}0`, CUSTOMER.slice(2), `0x${'g'.repeat(40)}`]) {
      expect(checkRefundAddress(given, platform), String(given)).toEqual({ ok: false, message: expect.stringContaining('must be an EVM address') });
    }
    // The last letter's case flipped.
    expect(checkRefundAddress('0x52908400098527886E0F7030069857D2E4169Ee7', platform)).toEqual({ ok: false, message: expect.stringContaining('EIP-55 checksum') });
    expect(readEvmAddress('0x52908400098527886E0F7030069857D2E4169Ee7')).toEqual({ problem: 'checksum' });
  });

  it('refuses the zero address even without the platform’s addresses (the update validator’s check)', () => {
    expect(checkRefundAddress(ZERO_ADDRESS)).toEqual({ ok: false, message: expect.stringContaining('zero address') });
    expect(checkRefundAddress(ZERO_ADDRESS, platform)).toEqual({ ok: false, message: expect.stringContaining('zero address') });
    expect(checkRefundAddress(TREASURY)).toEqual({ ok: true, address: TREASURY });
  });

  it('refuses the treasury, a configured token contract and a deposit address of ours, in any case', () => {
    expect(checkRefundAddress(TREASURY.toLowerCase(), platform)).toEqual({ ok: false, message: expect.stringContaining('treasury') });
    expect(checkRefundAddress(TOKEN, platform)).toEqual({ ok: false, message: expect.stringContaining('token contract') });
    expect(checkRefundAddress(CUSTOMER, { ...platform, isDepositAddress: true })).toEqual({ ok: false, message: expect.stringContaining('deposit addresses') });
    expect(checkRefundAddress(CUSTOMER, { treasury: null, tokenContracts: [], isDepositAddress: false })).toEqual({ ok: true, address: CUSTOMER });
  });
});
