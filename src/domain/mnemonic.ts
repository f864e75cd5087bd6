import { createHash } from 'node:crypto';
import { english } from 'viem/accounts';

// SETTLEMENT_MNEMONIC holds the platform's keys: one mistyped word would derive other addresses,
// so a phrase is checked against the BIP-39 word list and its checksum before anything uses it.

/**
 * The development mnemonic: anvil's own well-known phrase, so that under `npm start` and in tests the
 * treasury (its first account) holds the dev chain's ether for gas. Public: production refuses it.
 */
export const DEV_SETTLEMENT_MNEMONIC = 'test test test test test test test test test test test junk';

const WORD_INDEX = new Map(english.map((word, i) => [word, i]));

export function isValidMnemonic(phrase: string): boolean {
  const words = phrase.normalize('NFKD').trim().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) return false;
  const indices = words.map((w) => WORD_INDEX.get(w));
  if (indices.some((i) => i === undefined)) return false;
  const bits = indices.map((i) => i!.toString(2).padStart(11, '0')).join('');
  const checksumBits = words.length / 3;
  const entropyBits = bits.slice(0, bits.length - checksumBits);
  const entropy = Buffer.from(entropyBits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const hash = createHash('sha256').update(entropy).digest();
  const expected = [...hash]
    .map((b) => b.toString(2).padStart(8, '0'))
    .join('')
    .slice(0, checksumBits);
  return bits.slice(-checksumBits) === expected;
}
