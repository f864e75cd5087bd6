import { describe, expect, it } from 'vitest';
import { isEvmAddress, parseEvmAddress } from '../../src/domain/evm-address';
import { microToTokenUnits, parseMicro, formatMicro, tokenUnitsToMicro } from '../../src/chains/amounts';
import { DEV_MINTER_ADDRESS } from '../../tools/dev/dev-accounts';
import { settlementKeys, TREASURY_PATH } from '../../src/chains/derivation';
import { DEV_SETTLEMENT_MNEMONIC, isValidMnemonic } from '../../src/domain/mnemonic';
import { AmountError } from '../../src/domain/money';
import { redactRpcUrl } from '../../src/domain/rpc-url';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('EIP-55 addresses', () => {
  // Vectors of EIP-55 itself.
  const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  it.each([
    ['the checksummed form', checksummed, true, checksummed],
    [
      'a checksummed form whose letters are all capitals',
      '0x52908400098527886E0F7030069857D2E4169EE7',
      true,
      '0x52908400098527886E0F7030069857D2E4169EE7',
    ],
    ['another checksummed form', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', true, '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB'],
    ['all lowercase (no checksum carried)', checksummed.toLowerCase(), false, checksummed],
    ['all uppercase hex (no checksum carried)', '0x' + checksummed.slice(2).toUpperCase(), false, checksummed],
    ['one letter with the wrong case', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', false, null],
    ['one digit changed under a valid-looking case', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAee', false, null],
    ['39 hex digits', checksummed.slice(0, -1), false, null],
    ['41 hex digits', checksummed + '7', false, null],
    ['no 0x prefix', checksummed.slice(2), false, null],
    ['a non-hex character', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeG', false, null],
    ['a Tron address', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', false, null],
    ['surrounding space', ` ${checksummed}`, false, null],
  ])('%s', (_label, value, strict, lenient) => {
    expect(isEvmAddress(value)).toBe(strict);
    expect(parseEvmAddress(value)).toBe(lenient);
  });
});

describe('settlement keys (BIP-32/44 from SETTLEMENT_MNEMONIC)', () => {
  it('puts the treasury at the standard first account, as any wallet derives it', () => {
    expect(TREASURY_PATH).toBe("m/44'/60'/0'/0/0");
    // Published vectors: anvil's account 0, and the usual "abandon … about" test phrase.
    expect(settlementKeys(DEV_SETTLEMENT_MNEMONIC).treasury.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(settlementKeys(ABANDON).treasury.address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('names the dev minter: anvil account 9, apart from the treasury', () => {
    expect(DEV_MINTER_ADDRESS).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720');
  });

  it('checks a mnemonic against the word list and its checksum', () => {
    expect(isValidMnemonic(DEV_SETTLEMENT_MNEMONIC)).toBe(true);
    expect(isValidMnemonic(ABANDON)).toBe(true);
    expect(isValidMnemonic(ABANDON.replace(/about$/, 'abandon'))).toBe(false); // checksum
    expect(isValidMnemonic(ABANDON.replace(/about$/, 'abuot'))).toBe(false); // not a word
    expect(isValidMnemonic('abandon abandon about')).toBe(false); // length
  });
});

describe('token amounts in micro units', () => {
  it('parses and formats without floating point', () => {
    expect(parseMicro('24.75')).toBe(24_750_000n);
    expect(parseMicro('0.000001')).toBe(1n);
    expect(formatMicro(24_750_000n)).toBe('24.750000');
    expect(() => parseMicro('0.0000001')).toThrow(AmountError);
  });

  it('converts to and from other decimals exactly, or refuses', () => {
    expect(tokenUnitsToMicro(5_000_000n, 6)).toBe(5_000_000n);
    expect(tokenUnitsToMicro(5n * 10n ** 18n, 18)).toBe(5_000_000n);
    expect(() => tokenUnitsToMicro(1n, 18)).toThrow(AmountError);
    expect(microToTokenUnits(1n, 18)).toBe(10n ** 12n);
    expect(microToTokenUnits(100n, 4)).toBe(1n);
    expect(() => microToTokenUnits(1n, 4)).toThrow(AmountError);
  });
});

describe('RPC URLs shown to operators', () => {
  it.each([
    ['https://eth-mainnet.g.alchemy.com/v2/AbCdEf0123456789XyZ_abcdEF', 'https://eth-mainnet.g.alchemy.com/v2/***'],
    ['https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef', 'https://mainnet.infura.io/v3/***'],
    ['https://user:secret@rpc.example.com/path?apikey=123', 'https://***@rpc.example.com/path?***'],
    ['http://127.0.0.1:8545', 'http://127.0.0.1:8545'],
  ])('%s → %s', (url, shown) => {
    expect(redactRpcUrl(url)).toBe(shown);
  });
});
