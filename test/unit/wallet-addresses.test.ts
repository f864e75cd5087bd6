import { describe, expect, it } from 'vitest';
import { isWalletAddressFor, normalizeWalletAddress, type Network } from '../../src/domain/assets';

// Each network's own encoding, checksum included: a mistyped wallet must never be accepted.
const CHECKSUMMED = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('wallet addresses per network', () => {
  it.each<[string, Network, string, string | null]>([
    ['an EIP-55 address', 'polygon', CHECKSUMMED, CHECKSUMMED],
    ['the same all lowercase (no checksum to check): checksummed', 'ethereum', CHECKSUMMED.toLowerCase(), CHECKSUMMED],
    ['the same with one letter in the wrong case', 'base', CHECKSUMMED.replace('E7', 'e7'), null],
    ['one hex digit short', 'arbitrum', CHECKSUMMED.slice(0, -1), null],
    ['a Tron address on an EVM network', 'polygon', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', null],
    ['a Tron address', 'tron', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'],
    ['a Tron address with a broken checksum', 'tron', 'TJYeasTPa6gpEEfYdNsHHx8j8CHCq5Jx2F', null],
    ['a base58check address of another version byte', 'tron', 'TZajd1CF2GBG934dDWMR4LTmXMm76aqib1', null],
    ['an EVM address on Tron', 'tron', CHECKSUMMED, null],
    [
      'a Solana public key (32 bytes)',
      'solana',
      'cGfHiC6Kgg3FpFZvgwGcswsCRtp4aBP2fzuXRQPizuN',
      'cGfHiC6Kgg3FpFZvgwGcswsCRtp4aBP2fzuXRQPizuN',
    ],
    ['31 bytes in base58', 'solana', '7DUeBUtEcb7nujVZRJmeBju3X1mo6PpnWNtJ9EBhdY', null],
    ['a character outside base58 (0)', 'solana', '0GfHiC6Kgg3FpFZvgwGcswsCRtp4aBP2fzuXRQPizuN', null],
  ])('%s', (_name, network, address, expected) => {
    expect(normalizeWalletAddress(network, address)).toBe(expected);
    expect(isWalletAddressFor(network, address)).toBe(expected !== null);
  });
});
