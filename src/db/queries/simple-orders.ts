import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { simpleOrders } from '../schema';
import { orderSourcesOf, type SimpleOrderStatus } from '../../domain/payment-status';

export type SimpleOrderRow = typeof simpleOrders.$inferSelect;
export type NewSimpleOrder = typeof simpleOrders.$inferInsert;

export async function insertSimpleOrder(db: DatabaseOrTransaction, row: NewSimpleOrder): Promise<SimpleOrderRow> {
  const [inserted] = await db.insert(simpleOrders).values(row).returning();
  return inserted!;
}

export async function findSimpleOrder(db: DatabaseOrTransaction, code: string): Promise<SimpleOrderRow | undefined> {
  return (await findSimpleOrders(db, [code]))[0];
}

export async function lockSimpleOrder(db: DatabaseOrTransaction, code: string): Promise<SimpleOrderRow | undefined> {
  const [row] = await db.select().from(simpleOrders).where(eq(simpleOrders.transactionCode, code)).for('update');
  return row;
}

/** Fixes G for a chain-verified order unless it is fixed already (the first one stands); answers the stored G. */
export async function setOrderExpectedGross(db: DatabaseOrTransaction, code: string, micro: bigint): Promise<bigint> {
  await db
    .update(simpleOrders)
    .set({ expectedGrossMicro: micro, updatedAt: sql`now()` })
    .where(and(eq(simpleOrders.transactionCode, code), isNull(simpleOrders.expectedGrossMicro)));
  const [row] = await db.select({ g: simpleOrders.expectedGrossMicro }).from(simpleOrders).where(eq(simpleOrders.transactionCode, code));
  return row!.g!;
}

/** The orders among `codes` (the live status streams read every watched order at once). */
export async function findSimpleOrders(db: DatabaseOrTransaction, codes: readonly string[]): Promise<SimpleOrderRow[]> {
  if (codes.length === 0) return [];
  return db
    .select()
    .from(simpleOrders)
    .where(inArray(simpleOrders.transactionCode, [...codes]));
}

type Updatable = Partial<Omit<SimpleOrderRow, 'transactionCode' | 'createdAt' | 'updatedAt' | 'status'>>;

export async function updateSimpleOrder(db: DatabaseOrTransaction, code: string, changes: Updatable): Promise<void> {
  await db
    .update(simpleOrders)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(simpleOrders.transactionCode, code));
}

/** Moves an order to `to` only from a status the domain's table allows; returns whether this call made the change (idempotent on retry). */
export async function transitionSimpleOrder(
  db: DatabaseOrTransaction,
  code: string,
  to: SimpleOrderStatus,
  extra: Updatable = {},
): Promise<boolean> {
  const rows = await db
    .update(simpleOrders)
    .set({ status: to, updatedAt: sql`now()`, ...extra })
    .where(and(eq(simpleOrders.transactionCode, code), inArray(simpleOrders.status, orderSourcesOf(to))))
    .returning({ code: simpleOrders.transactionCode });
  return rows.length > 0;
}
