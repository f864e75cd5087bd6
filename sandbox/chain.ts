import { randomBytes, randomInt } from 'node:crypto';
import type { Network } from '../src/domain/assets';

// Simulated on-chain delivery: transaction hashes shaped like the real network's, so whatever
// stores or links them (our transaction row, explorer links) sees realistic values.

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function transactionHashFor(network: Network): string {
  switch (network) {
    case 'solana': {
      // A Solana signature is 64 bytes, written in base58 (up to 88 characters).
      let out = '';
      for (let i = 0; i < 88; i++) out += BASE58[randomInt(BASE58.length)];
      return out;
    }
    case 'tron':
      return randomBytes(32).toString('hex');
    default:
      return `0x${randomBytes(32).toString('hex')}`;
  }
}

export const explorerUrlFor = (publicUrl: string, hash: string) => `${publicUrl}/explorer/tx/${hash}`;
