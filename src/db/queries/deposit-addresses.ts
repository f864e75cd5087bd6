import { eq, inArray, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { depositAddresses } from '../schema';

export type DepositAddressRow = typeof depositAddresses.$inferSelect;

/** Indexes a handle takes from the sequence at once: one round trip serves this many payments. */
const INDEX_BATCH = 16;

/**
 * Derivation indexes taken from the sequence a batch at a time, per database handle (as prepared
 * statements are), handed out in order. An index a process took and never used (it stopped, or the
 * payment already had its address) is a gap, which costs nothing (src/db/schema/deposit-addresses.ts).
 */
const reserves = new WeakMap<object, { free: number[]; refill?: Promise<void> }>();

async function takeIndex(db: DatabaseOrTransaction): Promise<number> {
  let reserve = reserves.get(db);
  if (!reserve) reserves.set(db, (reserve = { free: [] }));
  const r = reserve;
  while (r.free.length === 0) {
    r.refill ??= db
      .execute<{ index: string }>(sql`select nextval('deposit_address_index') as index from generate_series(1, ${INDEX_BATCH})`)
      .then((rows) => {
        r.free.push(...rows.map((row) => Number(row.index)).sort((a, b) => a - b));
      })
      .finally(() => {
        r.refill = undefined;
      });
    await r.refill;
  }
  return r.free.shift()!;
}

/** A new payment's deposit address before its row is written: the next index and the address `derive` computes for it. */
export async function nextDepositAddress(
  db: DatabaseOrTransaction,
  derive: (index: number) => string,
): Promise<{ derivationIndex: number; address: string }> {
  const derivationIndex = await takeIndex(db);
  return { derivationIndex, address: derive(derivationIndex) };
}

/**
 * The payment's deposit address, allocated on first call: the next derivation index, the address
 * `derive` computes for it (the sweeper's forwarder of the index), one row, one statement.
 * Idempotent per payment reference: a retried activity, or two requests racing for the same payment,
 * get the same row (the loser's index goes back to be used next). The row keeps the network first asked for.
 */
export async function allocateDepositAddress(
  db: DatabaseOrTransaction,
  input: { paymentReference: string; network: string; derive: (index: number) => string },
): Promise<{ row: DepositAddressRow; created: boolean }> {
  const derivationIndex = await takeIndex(db);
  const [row] = await db
    .insert(depositAddresses)
    .values({ derivationIndex, address: input.derive(derivationIndex), network: input.network, paymentReference: input.paymentReference })
    .onConflictDoNothing({ target: depositAddresses.paymentReference })
    .returning();
  if (row) return { row, created: true };
  reserves.get(db)?.free.unshift(derivationIndex);
  const existing = await findDepositAddressForPayment(db, input.paymentReference);
  if (!existing) throw new Error(`deposit address of ${input.paymentReference} vanished during allocation`);
  return { row: existing, created: false };
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

/** The deposit addresses of these references that exist (a merchant's top-up addresses, say). */
export async function findDepositAddressesByReference(
  db: DatabaseOrTransaction,
  references: readonly string[],
): Promise<DepositAddressRow[]> {
  if (references.length === 0) return [];
  return db
    .select()
    .from(depositAddresses)
    .where(inArray(depositAddresses.paymentReference, [...references]));
}
