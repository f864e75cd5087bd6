import { describe, expect, it } from 'vitest';
import { logStanding, receiptHolds, transactionStanding, type ReceiptLog, type StoredLog } from '../../src/chains/log-standing';

// Where a credited log stands after the chain changed under it (pure).

const token = '0x1111111111111111111111111111111111111111';
const to = '0x2222222222222222222222222222222222222222';
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const word = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}`;
const stored: StoredLog = {
  transactionHash: '0xaa',
  logIndex: 3,
  token,
  to,
  amountMicro: 25_000_000n,
  blockNumber: 100n,
  blockHash: '0xb1',
};
const transferLog = (changes: Partial<ReceiptLog> & { amount?: bigint; recipient?: string } = {}): ReceiptLog => ({
  logIndex: changes.logIndex ?? 3,
  address: changes.address ?? token.toUpperCase().replace('0X', '0x'),
  topics: changes.topics ?? [TRANSFER, word('0x3333333333333333333333333333333333333333'), word(changes.recipient ?? to)],
  data: changes.data ?? `0x${(changes.amount ?? 25_000_000n).toString(16).padStart(64, '0')}`,
});
const receipt = (blockHash: string, logs: ReceiptLog[], status: 'success' | 'reverted' = 'success') => ({
  blockNumber: 105n,
  blockHash,
  status,
  logs,
});

describe('logStanding', () => {
  it('keeps a log whose receipt is in the block it was credited in', () => {
    expect(logStanding(stored, { receipt: receipt('0xB1', [transferLog()]), blockHashAtHeight: '0xb1' })).toEqual({ kind: 'kept' });
  });

  it('moves a log whose transaction was mined again in another block with the same log', () => {
    expect(logStanding(stored, { receipt: receipt('0xC2', [transferLog()]), blockHashAtHeight: '0xff' })).toEqual({
      kind: 'moved',
      blockNumber: 105n,
      blockHash: '0xc2',
    });
  });

  it('takes back a log whose receipt is gone and whose height holds another block', () => {
    expect(logStanding(stored, { receipt: null, blockHashAtHeight: '0xff' })).toEqual({ kind: 'gone' });
  });

  it('takes back a log whose transaction was mined again without it (reverted, another amount, another index, another recipient)', () => {
    for (const logs of [
      [transferLog({ amount: 1n })],
      [transferLog({ logIndex: 4 })],
      [transferLog({ recipient: token })],
      [transferLog({ address: to })],
      [],
    ]) {
      expect(logStanding(stored, { receipt: receipt('0xc2', logs), blockHashAtHeight: '0xff' })).toEqual({ kind: 'gone' });
    }
    expect(logStanding(stored, { receipt: receipt('0xc2', [transferLog()], 'reverted'), blockHashAtHeight: '0xff' })).toEqual({
      kind: 'gone',
    });
  });

  it('says nothing while the node is behind the log, or holds its block without its receipt', () => {
    expect(logStanding(stored, { receipt: null, blockHashAtHeight: null })).toEqual({ kind: 'unknown' });
    expect(logStanding(stored, { receipt: null, blockHashAtHeight: '0xB1' })).toEqual({ kind: 'unknown' });
  });

  it('matches a Transfer log only, by its decoded recipient and amount', () => {
    expect(receiptHolds([transferLog()], stored)).toBe(true);
    expect(receiptHolds([transferLog({ topics: ['0x01', word(to), word(to)] })], stored)).toBe(false);
    expect(receiptHolds([transferLog({ data: '0x' })], stored)).toBe(false);
  });
});

describe('transactionStanding', () => {
  it('is mined with a receipt, gone when its old height holds a block without it, unknown otherwise', () => {
    expect(transactionStanding('0xAA', { hasReceipt: true, transactionsAtHeight: null })).toBe('mined');
    expect(transactionStanding('0xAA', { hasReceipt: false, transactionsAtHeight: ['0xbb'] })).toBe('gone');
    expect(transactionStanding('0xAA', { hasReceipt: false, transactionsAtHeight: [] })).toBe('gone');
    expect(transactionStanding('0xAA', { hasReceipt: false, transactionsAtHeight: ['0xaa'] })).toBe('unknown');
    expect(transactionStanding('0xAA', { hasReceipt: false, transactionsAtHeight: null })).toBe('unknown');
  });
});
