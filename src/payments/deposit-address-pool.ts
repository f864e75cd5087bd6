import type { Database } from '../db/client';
import { addToDepositAddressPool, depositAddressPoolSize } from '../db/queries/deposit-addresses';
import { keysFor } from './deposits';

/**
 * Issue 32: deposit addresses derived ahead, in batches, by the worker, so that creating a
 * chain-verified payment costs the API no elliptic-curve multiplication (~0.9 ms each) and no round
 * trip of its own: the payment's insert takes one (take_deposit_address). Below LOW_WATER the pool is
 * topped up to TARGET; an empty pool is no outage, the API derives inline (deposits.ts).
 */
export const DEPOSIT_ADDRESS_POOL = { target: 2000, lowWater: 1000, batch: 250, checkEveryMs: 1000 } as const;

/** Addresses derived between two yields to the event loop: the worker's workflow tasks never wait long. */
const DERIVE_SLICE = 25;

/** Tops the pool up to `target` when it is below `lowWater`; answers how many it added. */
export async function refillDepositAddressPool(
  db: Database,
  mnemonic: string,
  options: { target: number; lowWater: number; batch: number } = DEPOSIT_ADDRESS_POOL,
): Promise<number> {
  const size = await depositAddressPoolSize(db);
  if (size >= options.lowWater) return 0;
  const keys = keysFor(mnemonic);
  let derived = 0;
  const derive = async (index: number) => {
    if (++derived % DERIVE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    return keys.depositAddress(index);
  };
  let added = 0;
  for (let missing = options.target - size; missing > 0; missing -= options.batch) {
    added += await addToDepositAddressPool(db, Math.min(options.batch, missing), derive);
  }
  return added;
}

/**
 * The worker's refill loop: a check every `checkEveryMs`, one refill at a time, errors (Postgres
 * down) reported and retried at the next check. Several workers may run it: the pool only overshoots.
 */
export function startDepositAddressPool(
  db: Database,
  mnemonic: string,
  onError: (err: unknown) => void,
  options: typeof DEPOSIT_ADDRESS_POOL = DEPOSIT_ADDRESS_POOL,
): () => void {
  let running = false;
  const round = () => {
    if (running) return;
    running = true;
    void refillDepositAddressPool(db, mnemonic, options)
      .catch(onError)
      .finally(() => (running = false));
  };
  round();
  const timer = setInterval(round, options.checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
