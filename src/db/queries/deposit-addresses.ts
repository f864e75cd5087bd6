import { eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { postgresCode } from '../../domain/sql-errors';
import { depositAddresses, depositAddressPool } from '../schema';

export type DepositAddressRow = typeof depositAddresses.$inferSelect;

/**
 * The payment's deposit address, allocated on first call: the next derivation index from the
 * sequence, the address `derive` computes for it (chains' settlementKeys().depositAddress), one row.
 * Idempotent per payment reference: a retried activity, or two requests racing for the same payment,
 * get the same row (the loser's index is simply never used). The row keeps the network first asked for.
 */
export async function allocateDepositAddress(
  db: DatabaseOrTransaction,
  input: { paymentReference: string; network: string; derive: (index: number) => string; pooled: boolean },
): Promise<{ row: DepositAddressRow; created: boolean }> {
  const existing = await findDepositAddressForPayment(db, input.paymentReference);
  if (existing) return { row: existing, created: false };
  // A pooled one first (derived ahead by the worker); the pool empty, one derived here.
  if (input.pooled)
    try {
      await db.execute(sql`select ${takePooledDepositAddress(input.network, input.paymentReference)}`);
      const taken = await findDepositAddressForPayment(db, input.paymentReference);
      if (taken) return { row: taken, created: true };
    } catch (err) {
      if (postgresCode(err) === '23505') {
        const winner = await findDepositAddressForPayment(db, input.paymentReference);
        if (winner) return { row: winner, created: false };
      }
      if (!isPoolEmpty(err)) throw err;
    }
  const [next] = await db.execute<{ index: string }>(sql`select nextval('deposit_address_index') as index`);
  const derivationIndex = Number(next!.index);
  const [row] = await db
    .insert(depositAddresses)
    .values({ derivationIndex, address: input.derive(derivationIndex), network: input.network, paymentReference: input.paymentReference })
    .onConflictDoNothing({ target: depositAddresses.paymentReference })
    .returning();
  if (row) return { row, created: true };
  const winner = await findDepositAddressForPayment(db, input.paymentReference);
  if (!winner) throw new Error(`deposit address of ${input.paymentReference} vanished during allocation`);
  return { row: winner, created: false };
}

export async function findDepositAddressForPayment(
  db: DatabaseOrTransaction,
  paymentReference: string,
): Promise<DepositAddressRow | undefined> {
  const [row] = await db.select().from(depositAddresses).where(eq(depositAddresses.paymentReference, paymentReference));
  return row;
}

/** The rows of the addresses a watcher reported transfers to (addresses as stored: checksummed). */
export async function findDepositAddresses(db: DatabaseOrTransaction, addresses: readonly string[]): Promise<DepositAddressRow[]> {
  if (addresses.length === 0) return [];
  return db
    .select()
    .from(depositAddresses)
    .where(inArray(depositAddresses.address, [...addresses]));
}

/**
 * The SQL expression that takes a pooled address for a payment (take_deposit_address, migration 0019):
 * the address, its deposit_addresses row written in the same statement. Fails with isPoolEmpty when
 * the pool is empty.
 */
export const takePooledDepositAddress = (network: string, paymentReference: string): SQL =>
  sql`take_deposit_address(${network}, ${paymentReference})`;

/** take_deposit_address found no pooled address (SQLSTATE DAP01). */
export const isPoolEmpty = (err: unknown) => postgresCode(err) === 'DAP01';

export async function depositAddressPoolSize(db: DatabaseOrTransaction): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(depositAddressPool);
  return row!.n;
}

/**
 * `count` indices of the sequence (one statement), each derived by `derive`, into the pool. Indices
 * come from the same sequence as inline allocations, so a pooled address is never any other payment's.
 * `derive` may yield between addresses (an elliptic-curve multiplication each).
 */
export async function addToDepositAddressPool(
  db: DatabaseOrTransaction,
  count: number,
  derive: (index: number) => string | Promise<string>,
): Promise<number> {
  if (count <= 0) return 0;
  const indices = await db.execute<{ index: string }>(
    sql`select nextval('deposit_address_index') as index from generate_series(1, ${count})`,
  );
  const rows = [];
  for (const { index } of indices) rows.push({ derivationIndex: Number(index), address: await derive(Number(index)) });
  await db.insert(depositAddressPool).values(rows);
  return rows.length;
}
