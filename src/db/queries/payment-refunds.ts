import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { paymentRefunds } from '../schema';

// The refunds of completed payments (schema/payment-refunds.ts).

export type PaymentRefundRow = typeof paymentRefunds.$inferSelect;
export type NewPaymentRefund = typeof paymentRefunds.$inferInsert;

export async function insertPaymentRefund(db: DatabaseOrTransaction, row: NewPaymentRefund): Promise<PaymentRefundRow> {
  const [inserted] = await db.insert(paymentRefunds).values(row).returning();
  return inserted!;
}

export async function findPaymentRefund(db: DatabaseOrTransaction, id: string): Promise<PaymentRefundRow | undefined> {
  const [row] = await db.select().from(paymentRefunds).where(eq(paymentRefunds.id, id));
  return row;
}

export async function lockPaymentRefund(db: DatabaseOrTransaction, id: string): Promise<PaymentRefundRow | undefined> {
  const [row] = await db.select().from(paymentRefunds).where(eq(paymentRefunds.id, id)).for('update');
  return row;
}

/** A payment's refunds, oldest first. */
export async function listPaymentRefunds(db: DatabaseOrTransaction, paymentId: string): Promise<PaymentRefundRow[]> {
  return db
    .select()
    .from(paymentRefunds)
    .where(eq(paymentRefunds.paymentId, paymentId))
    .orderBy(asc(paymentRefunds.createdAt), asc(paymentRefunds.id));
}

export async function updatePaymentRefund(db: DatabaseOrTransaction, id: string, changes: Partial<NewPaymentRefund>): Promise<void> {
  await db.update(paymentRefunds).set(changes).where(eq(paymentRefunds.id, id));
}

/** What a payment's refunds take from its gross: every refund but a failed one (asked for, under way, or sent). */
export async function refundedOfPayment(db: DatabaseOrTransaction, paymentId: string, except?: string): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${paymentRefunds.amountMicro})::text` })
    .from(paymentRefunds)
    .where(
      and(eq(paymentRefunds.paymentId, paymentId), ne(paymentRefunds.status, 'failed'), except ? ne(paymentRefunds.id, except) : undefined),
    );
  return BigInt(row?.total ?? 0);
}
