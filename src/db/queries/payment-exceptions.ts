import { and, asc, eq, like, or, sql } from 'drizzle-orm';
import { requirePositiveExceptionAmount, transferKeyOf } from '../../domain/exceptions';
import type { DatabaseOrTransaction } from '../client';
import { paymentExceptions } from '../schema';

export type PaymentExceptionRow = typeof paymentExceptions.$inferSelect;
export type NewPaymentException = Omit<typeof paymentExceptions.$inferInsert, 'status' | 'createdAt' | 'resolvedAt'>;
export type ExceptionStatus = PaymentExceptionRow['status'];

/**
 * Records an arrival of money once (decisions §12): the first record of (payment, kind, arrival)
 * stands, and a retry or a second report of the same arrival finds it; `inserted` says whether
 * this call wrote it (so its event is announced once). One arrival, one exception: a provider's word
 * for a transfer (`tx:<network>:<hash>`) and the chain's log of it (`tx:<network>:<hash>:<index>`)
 * are one record. The word finds the log's record; the log, proof of what arrived, takes over the
 * word's open record (its kind and amount become the log's: a claimed success is now money seen).
 * An amount that is not positive is refused (ExceptionAmountNotPositive) before anything is written:
 * callers decide first that money moved.
 */
export async function recordPaymentException(
  db: DatabaseOrTransaction,
  row: NewPaymentException,
): Promise<PaymentExceptionRow & { inserted: boolean }> {
  requirePositiveExceptionAmount(row.amountMicro);
  const arrivalKey = row.arrivalKey ?? 'payment';
  const transfer = transferKeyOf(arrivalKey);
  if (transfer) {
    const same = await db
      .select()
      .from(paymentExceptions)
      .where(
        and(
          eq(paymentExceptions.paymentId, row.paymentId),
          or(eq(paymentExceptions.arrivalKey, transfer), like(paymentExceptions.arrivalKey, `${transfer}:%`)),
        ),
      )
      .orderBy(asc(paymentExceptions.createdAt));
    const exact = same.find((e) => e.arrivalKey === arrivalKey);
    if (exact) return { ...exact, inserted: false };
    if (arrivalKey === transfer && same[0]) return { ...same[0], inserted: false };
    const word = same.find((e) => e.arrivalKey === transfer && e.status === 'open');
    if (word && arrivalKey !== transfer) {
      const references = {
        ...(word.references as Record<string, unknown>),
        ...(row.references as Record<string, unknown>),
        reportedAs: word.kind,
      };
      const [adopted] = await db
        .update(paymentExceptions)
        .set({ kind: row.kind, arrivalKey, amountMicro: row.amountMicro, token: row.token ?? null, asset: row.asset ?? null, references })
        .where(and(eq(paymentExceptions.id, word.id), eq(paymentExceptions.status, 'open')))
        .returning();
      if (adopted) return { ...adopted, inserted: false };
    }
  }
  const written = await db
    .insert(paymentExceptions)
    .values({ ...row, arrivalKey })
    .onConflictDoNothing({ target: [paymentExceptions.paymentId, paymentExceptions.kind, paymentExceptions.arrivalKey] })
    .returning();
  if (written[0]) return { ...written[0], inserted: true };
  const [stored] = await db
    .select()
    .from(paymentExceptions)
    .where(
      and(
        eq(paymentExceptions.paymentId, row.paymentId),
        eq(paymentExceptions.kind, row.kind),
        eq(paymentExceptions.arrivalKey, arrivalKey),
      ),
    );
  return { ...stored!, inserted: false };
}

/** A payment's exceptions whatever their kind, for an arrival key: did this money already get a record? */
export async function findExceptionByArrival(
  db: DatabaseOrTransaction,
  paymentId: string,
  arrivalKey: string,
): Promise<PaymentExceptionRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentExceptions)
    .where(and(eq(paymentExceptions.paymentId, paymentId), eq(paymentExceptions.arrivalKey, arrivalKey)))
    .limit(1);
  return row;
}

export async function listPaymentExceptions(db: DatabaseOrTransaction, paymentId: string): Promise<PaymentExceptionRow[]> {
  return db
    .select()
    .from(paymentExceptions)
    .where(eq(paymentExceptions.paymentId, paymentId))
    .orderBy(asc(paymentExceptions.createdAt), asc(paymentExceptions.id));
}

export async function findPaymentException(db: DatabaseOrTransaction, id: string): Promise<PaymentExceptionRow | undefined> {
  const [row] = await db.select().from(paymentExceptions).where(eq(paymentExceptions.id, id));
  return row;
}

/** The operators' queue: oldest first, at most `limit`. */
export async function listExceptionsByStatus(
  db: DatabaseOrTransaction,
  status: ExceptionStatus | undefined,
  limit: number,
): Promise<PaymentExceptionRow[]> {
  return db
    .select()
    .from(paymentExceptions)
    .where(status ? eq(paymentExceptions.status, status) : undefined)
    .orderBy(asc(paymentExceptions.createdAt), asc(paymentExceptions.id))
    .limit(limit);
}

/** An open exception resolved once; a second resolution changes nothing (false). */
export async function resolvePaymentException(
  db: DatabaseOrTransaction,
  id: string,
  status: Exclude<ExceptionStatus, 'open'>,
): Promise<boolean> {
  const rows = await db
    .update(paymentExceptions)
    .set({ status, resolvedAt: sql`now()` })
    .where(and(eq(paymentExceptions.id, id), eq(paymentExceptions.status, 'open')))
    .returning({ id: paymentExceptions.id });
  return rows.length > 0;
}

/** The exception, locked for the acceptance that reads and resolves it in one transaction. */
export async function lockPaymentException(db: DatabaseOrTransaction, id: string): Promise<PaymentExceptionRow | undefined> {
  const [row] = await db.select().from(paymentExceptions).where(eq(paymentExceptions.id, id)).for('update');
  return row;
}
