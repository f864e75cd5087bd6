import { and, asc, eq, like, sql } from 'drizzle-orm';
import { postingLeft, type Posting } from '../../domain/ledger';
import type { DatabaseOrTransaction } from '../client';
import { ledgerEntries } from '../schema';
import { placeholderRows, preparedFor } from './prepared';

/** `text` matched literally inside a LIKE pattern. */
const escapeLike = (text: string) => text.replace(/[%_\\]/g, '\\$&');

/**
 * Writes postings once, inside the caller's transaction (the state change that caused them), in one
 * statement. A posting id already written is left as it is, so a retried activity posts nothing twice.
 */
export async function writePostings(tx: DatabaseOrTransaction, postings: Posting[]): Promise<void> {
  const rows = ledgerRows(postings);
  if (rows.length === 0) return;
  // A completion's posting, a refund's, an exception's: built once per process for each shape (prepared.ts).
  const { shape, placeholders, values } = placeholderRows(rows);
  const name = `insert_ledger_lines ${shape}`;
  const query = preparedFor(tx, name, () =>
    tx
      .insert(ledgerEntries)
      .values(placeholders)
      .onConflictDoNothing({ target: [ledgerEntries.postingId, ledgerEntries.line] })
      .prepare(name),
  );
  await query.execute(values);
}

/** The ledger lines of postings, as inserted: one per line, numbered within its posting. */
export function ledgerRows(postings: Posting[]): (typeof ledgerEntries.$inferInsert)[] {
  return postings.flatMap((posting) =>
    posting.lines.map((l, i) => ({
      postingId: posting.postingId,
      line: i + 1,
      account: l.account,
      asset: posting.asset,
      network: posting.network,
      amount: l.amount.toString(),
      paymentId: posting.paymentId,
      txHash: posting.txHash,
    })),
  );
}

export const writePosting = (tx: DatabaseOrTransaction, posting: Posting) => writePostings(tx, [posting]);

/** A payment's postings whose id starts with `prefix` (found through the payment's index). */
const postingsOf = (paymentId: string, prefix: string) =>
  and(eq(ledgerEntries.paymentId, paymentId), like(ledgerEntries.postingId, `${escapeLike(prefix)}%`));

/** The id of a log's next arrival posting (for `paymentId`): one more than those it has (reversed or not). */
export async function nextArrivalPostingId(db: DatabaseOrTransaction, paymentId: string, prefix: string): Promise<string> {
  const [row] = await db
    .select({ n: sql<number>`count(distinct ${ledgerEntries.postingId})::int` })
    .from(ledgerEntries)
    .where(and(postingsOf(paymentId, prefix), sql`${ledgerEntries.postingId} not like '%:left'`));
  return `${prefix}${(row?.n ?? 0) + 1}`;
}

/** A log's block left the chain: its arrival postings not yet reversed are reversed (`…:left`). */
export async function reverseArrivals(db: DatabaseOrTransaction, paymentId: string, prefix: string): Promise<void> {
  const ids = await db.selectDistinct({ id: ledgerEntries.postingId }).from(ledgerEntries).where(postingsOf(paymentId, prefix));
  const all = new Set(ids.map((r) => r.id));
  for (const id of all) {
    if (id.endsWith(':left') || all.has(`${id}:left`)) continue;
    const posting = await readPosting(db, id);
    if (posting) await writePosting(db, postingLeft(posting));
  }
}

/** A posting as it was written, or undefined when none has that id. */
export async function readPosting(db: DatabaseOrTransaction, postingId: string): Promise<Posting | undefined> {
  const lines = await db.select().from(ledgerEntries).where(eq(ledgerEntries.postingId, postingId)).orderBy(asc(ledgerEntries.line));
  const first = lines[0];
  if (!first) return undefined;
  return {
    postingId,
    asset: first.asset,
    network: first.network,
    paymentId: first.paymentId,
    txHash: first.txHash,
    lines: lines.map((l) => ({ account: l.account, amount: BigInt(l.amount) })),
  };
}

export interface AccountBalance {
  account: string;
  asset: string;
  network: string;
  /** Debits minus credits: positive for what the platform holds, negative for what it owes or earned. */
  balance: bigint;
}

const balanceColumns = {
  account: ledgerEntries.account,
  asset: ledgerEntries.asset,
  network: ledgerEntries.network,
  balance: sql<string>`sum(${ledgerEntries.amount})`.as('balance'),
};

const toBalances = (rows: { account: string; asset: string; network: string; balance: string }[]): AccountBalance[] =>
  rows.map((r) => ({ ...r, balance: BigInt(r.balance) }));

/** Every account's balance per asset and network; `prefix` narrows to one kind (`deposit:`, `treasury:`, `merchant:`). */
export async function ledgerBalances(db: DatabaseOrTransaction, prefix?: string): Promise<AccountBalance[]> {
  const rows = await db
    .select(balanceColumns)
    .from(ledgerEntries)
    .where(prefix ? like(ledgerEntries.account, `${escapeLike(prefix)}%`) : undefined)
    .groupBy(ledgerEntries.account, ledgerEntries.asset, ledgerEntries.network)
    .orderBy(asc(ledgerEntries.account), asc(ledgerEntries.asset), asc(ledgerEntries.network));
  return toBalances(rows);
}

/** One account's balance of one asset on one network (0 when it has no lines). */
export async function accountBalance(
  db: DatabaseOrTransaction,
  input: { account: string; asset: string; network: string },
): Promise<bigint> {
  const [row] = await db
    .select({ balance: sql<string | null>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.account, input.account), eq(ledgerEntries.asset, input.asset), eq(ledgerEntries.network, input.network)));
  return BigInt(row?.balance ?? '0');
}

export const treasuryBalances = (db: DatabaseOrTransaction) => ledgerBalances(db, 'treasury:');
export const depositAddressBalances = (db: DatabaseOrTransaction) => ledgerBalances(db, 'deposit:');
