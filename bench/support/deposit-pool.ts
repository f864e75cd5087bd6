import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../src/db/client';
import { depositAddressPoolSize } from '../../src/db/queries/deposit-addresses';
import { DEPOSIT_ADDRESS_POOL, refillDepositAddressPool } from '../../src/payments/deposit-address-pool';

/**
 * The deposit address pool full and no worker filling it: what a running deployment has. A worker
 * just started fills the pool (2,000 addresses, an elliptic-curve multiplication each, seconds of
 * CPU and thousands of inserts), which is start-up, not per payment: measured rounds that overlap it
 * put it on the first round's payments. Topped up here to its target, then read until it stays put
 * for longer than the worker's check interval.
 */
export async function settleDepositPool(db: Database, mnemonic: string, timeoutMs = 120_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await refillDepositAddressPool(db, mnemonic, { ...DEPOSIT_ADDRESS_POOL, lowWater: DEPOSIT_ADDRESS_POOL.target });
    const before = await depositAddressPoolSize(db);
    await sleep(DEPOSIT_ADDRESS_POOL.checkEveryMs * 2);
    const after = await depositAddressPoolSize(db);
    if (after === before) return after;
    if (Date.now() > until) throw new Error(`the deposit address pool kept changing for ${timeoutMs} ms (${before} -> ${after})`);
  }
}
