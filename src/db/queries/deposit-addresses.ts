import { eq, inArray, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { depositAddresses } from '../schema';

export type DepositAddressRow = typeof depositAddresses.$inferSelect;

/**
 * The payment's deposit address, allocated on first call: the next derivation index from the
 * sequence, the address `derive` computes for it (the sweeper's forwarder of the index), one row.
 * Idempotent per payment reference: a retried activity, or two requests racing for the same payment,
 * get the same row (the loser's index is simply never used). The row keeps the network first asked for.
 */
export async function allocateDepositAddress(
  db: DatabaseOrTransaction,
  input: { paymentReference: string; network: string; derive: (index: number) => string },
): Promise<{ row: DepositAddressRow; created: boolean }> {
  const existing = await findDepositAddressForPayment(db, input.paymentReference);
  if (existing) return { row: existing, created: false };
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
