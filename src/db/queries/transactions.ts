import { eq, inArray } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import type { Posting } from '../../domain/ledger';
import { ledgerEntries, transactions } from '../schema';
import { ledgerRows } from './ledger';
import { placeholderRows, preparedFor } from './prepared';

export type TransactionRow = typeof transactions.$inferSelect;
export type TransactionInsert = typeof transactions.$inferInsert;

/**
 * Inserts the payment's transaction once; a second call (retry, replay) returns the first row.
 * `postings` (the completion's) are written by the same statement, each once like writePostings'.
 */
export async function insertTransactionOnce(
  db: DatabaseOrTransaction,
  row: TransactionInsert,
  postings: Posting[] = [],
): Promise<TransactionRow> {
  // New (the common case): one round trip. A repeat reads the row the first call wrote.
  // Once per completion, with every column: built once per process for each shape (prepared.ts).
  const { shape, placeholders, values } = placeholderRows([row]);
  const lines = placeholderRows(ledgerRows(postings), 'line_');
  const name = `insert_transaction ${shape}${lines.shape ? ` with ${lines.shape}` : ''}`;
  const query = preparedFor(db, name, () => {
    const insert = (on: Pick<typeof db, 'insert'>) =>
      on.insert(transactions).values(placeholders).onConflictDoNothing({ target: transactions.paymentId }).returning();
    if (!lines.shape) return insert(db).prepare(name);
    // Postgres runs a data-modifying WITH to its end whether or not the statement reads from it.
    const posted = db.$with('posted').as(
      db
        .insert(ledgerEntries)
        .values(lines.placeholders)
        .onConflictDoNothing({ target: [ledgerEntries.postingId, ledgerEntries.line] })
        .returning({ id: ledgerEntries.id }),
    );
    return insert(db.with(posted)).prepare(name);
  });
  const [inserted] = await query.execute({ ...values, ...lines.values });
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
