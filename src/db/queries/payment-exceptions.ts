import { and, eq } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { paymentExceptions } from '../schema';

export type PaymentExceptionRow = typeof paymentExceptions.$inferSelect;
export type NewPaymentException = Omit<typeof paymentExceptions.$inferInsert, 'status' | 'createdAt'>;

/** Records the exception once per payment and kind; a later call never overwrites the first record. */
export async function recordPaymentException(db: DatabaseOrTransaction, row: NewPaymentException): Promise<PaymentExceptionRow> {
  await db.insert(paymentExceptions).values(row).onConflictDoNothing({ target: [paymentExceptions.paymentId, paymentExceptions.kind] });
  const [stored] = await db
    .select()
    .from(paymentExceptions)
    .where(and(eq(paymentExceptions.paymentId, row.paymentId), eq(paymentExceptions.kind, row.kind)));
  return stored!;
}

export async function listPaymentExceptions(db: DatabaseOrTransaction, paymentId: string): Promise<PaymentExceptionRow[]> {
  return db.select().from(paymentExceptions).where(eq(paymentExceptions.paymentId, paymentId)).orderBy(paymentExceptions.createdAt);
}
