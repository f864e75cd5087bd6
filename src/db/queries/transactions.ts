import { eq, inArray } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { transactions } from '../schema';
import { placeholderRows, preparedFor } from './prepared';

export type TransactionRow = typeof transactions.$inferSelect;

/** Inserts the payment's transaction once; a second call (retry, replay) returns the first row. */
export async function insertTransactionOnce(db: DatabaseOrTransaction, row: typeof transactions.$inferInsert): Promise<TransactionRow> {
  // New (the common case): one round trip. A repeat reads the row the first call wrote.
  // Once per completion, with every column: built once per process for each shape (prepared.ts).
  const { shape, placeholders, values } = placeholderRows([row]);
  const name = `insert_transaction ${shape}`;
  const query = preparedFor(db, name, () =>
    db.insert(transactions).values(placeholders).onConflictDoNothing({ target: transactions.paymentId }).returning().prepare(name),
  );
  const [inserted] = await query.execute(values);
  return inserted ?? (await findTransaction(db, row.paymentId))!;
}

export async function findTransaction(db: DatabaseOrTransaction, paymentId: string): Promise<TransactionRow | undefined> {
  const [row] = await db.select().from(transactions).where(eq(transactions.paymentId, paymentId));
  return row;
}

/** The transactions' hash and explorer link become the merchant payout's once it is confirmed (docs/settlement.md), in one statement. */
export async function setPayoutReference(
  db: DatabaseOrTransaction,
  paymentIds: string[],
  ref: { transactionHash: string; explorerUrl: string | null; payoutId: string },
): Promise<void> {
  if (paymentIds.length > 0) await db.update(transactions).set(ref).where(inArray(transactions.paymentId, paymentIds));
}
