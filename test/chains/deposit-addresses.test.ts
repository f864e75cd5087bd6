import { describe, expect, it } from 'vitest';
import { isEvmAddress } from '../../src/domain/evm-address';
import { settlementKeys } from '../../src/chains/derivation';
import { depositSalt, forwarderAddress } from '../../src/chains/sweeper';
import { allocateDepositAddress, findDepositAddresses, findDepositAddressForPayment } from '../../src/db/queries/deposit-addresses';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { drizzle } from 'drizzle-orm/postgres-js';
import * as schema from '../../src/db/schema';
import { useTestDatabase } from '../support/test-database';

describe('deposit address allocation (Postgres sequence)', () => {
  const keys = settlementKeys(DEV_SETTLEMENT_MNEMONIC);
  const handle = useTestDatabase(10);
  // The network's sweeper: each index's address is its forwarder, as the service derives them.
  const sweeper = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const depositAddress = (index: number) => forwarderAddress(sweeper, depositSalt(BigInt(index)));

  const allocate = (paymentReference: string, network = 'polygon') =>
    allocateDepositAddress(handle.db, { paymentReference, network, derive: depositAddress });

  it('gives the first payment index 0 and its derived, checksummed address', async () => {
    const { row, created } = await allocate('SV_first');
    expect(created).toBe(true);
    expect(row).toMatchObject({ derivationIndex: 0, address: depositAddress(0), network: 'polygon', paymentReference: 'SV_first' });
    expect(isEvmAddress(row.address)).toBe(true);
  });

  it('is idempotent per payment: a retry gets the same address', async () => {
    const first = await allocate('SV_retry', 'base');
    const again = await allocate('SV_retry', 'ethereum');
    expect(again.created).toBe(false);
    expect(again.row).toEqual(first.row);
    expect(await findDepositAddressForPayment(handle.db, 'SV_retry')).toEqual(first.row);
  });

  it('never hands two payments the same index, even when they race', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => allocate(`SV_race_${i}`)));
    const indices = results.map((r) => r.row.derivationIndex);
    expect(new Set(indices).size).toBe(20);
    expect(new Set(results.map((r) => r.row.address)).size).toBe(20);
    for (const { row } of results) expect(row.address).toBe(depositAddress(row.derivationIndex));
  });

  it('gives one address when the same payment races itself', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => allocate('SV_same')));
    expect(new Set(results.map((r) => r.row.address)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it('takes indexes from the sequence a batch at a time; another handle takes the next batch, never the same', async () => {
    const [before] = await handle.sql`select last_value::int as v from deposit_address_index`;
    const mine = await Promise.all(Array.from({ length: 3 }, (_, i) => allocate(`SV_batch_${i}`)));
    // Another process's handle: its own reserve over the same sequence.
    const other = drizzle(handle.sql, { schema });
    const theirs = await allocateDepositAddress(other, { paymentReference: 'SV_batch_other', network: 'polygon', derive: depositAddress });
    const [after] = await handle.sql`select last_value::int as v from deposit_address_index`;
    const indices = [...mine.map((r) => r.row.derivationIndex), theirs.row.derivationIndex];
    expect(new Set(indices).size).toBe(4);
    // This handle's three came from the batch it had taken already; the other handle took the next batch.
    expect(mine.every((r) => r.row.derivationIndex <= (before!.v as number))).toBe(true);
    expect((after!.v as number) - (before!.v as number)).toBe(16);
    expect(theirs.row.derivationIndex).toBe((before!.v as number) + 1);
  });

  it('finds the rows of the addresses a watcher reports', async () => {
    const a = await allocate('SV_find_a');
    const b = await allocate('SV_find_b');
    const rows = await findDepositAddresses(handle.db, [a.row.address, b.row.address, keys.treasury.address]);
    expect(rows.map((r) => r.paymentReference).sort()).toEqual(['SV_find_a', 'SV_find_b']);
  });
});
