import { and, asc, eq, isNull, ne, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { ledgerAccount } from '../../domain/ledger';
import { REFUND_DEBT_WINDOW_MS } from '../../domain/payment-refund';
import { checkoutSessions, ledgerEntries, paymentRefunds, payouts } from '../schema';
import { refundDebtCover } from './ledger';

// Issue 29 item 3: the refunds of completed payments (schema/payment-refunds.ts).

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

/** The refund a request key made on a payment, if any. */
export async function findRefundByRequestKey(
  db: DatabaseOrTransaction,
  paymentId: string,
  requestKey: string,
): Promise<PaymentRefundRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentRefunds)
    .where(and(eq(paymentRefunds.paymentId, paymentId), eq(paymentRefunds.requestKey, requestKey)));
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

/**
 * A merchant's refunds asked for and not yet confirmed, in one asset and network: debt the ledger
 * does not hold yet (it is posted when the transfer confirms), counted by the debt bound meanwhile.
 */
export async function pendingRefundsOfMerchant(
  db: DatabaseOrTransaction,
  input: { merchantId: string; asset: string; network: string; except?: string },
): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${paymentRefunds.amountMicro})::text` })
    .from(paymentRefunds)
    .where(
      and(
        eq(paymentRefunds.merchantId, input.merchantId),
        eq(paymentRefunds.asset, input.asset),
        eq(paymentRefunds.network, input.network),
        eq(paymentRefunds.status, 'requested'),
        input.except ? ne(paymentRefunds.id, input.except) : undefined,
      ),
    );
  return BigInt(row?.total ?? 0);
}

/**
 * What checkRefundDebt weighs a refund against, read under the merchant's row lock: their debt (the
 * ledger's, plus their refunds asked for and not yet confirmed but `except`), their payouts since
 * REFUND_DEBT_WINDOW_MS before `now`, and their credits not yet paid out. One read for the refund
 * asked for (the use case) and the failed one reopened (the operator's retry).
 */
export async function refundDebtStanding(
  db: DatabaseOrTransaction,
  input: { merchantId: string; asset: string; network: string; except?: string },
  now: Date,
): Promise<{ debtMicro: bigint; paidOutRecentlyMicro: bigint; unpaidMicro: bigint }> {
  const owner = { merchantId: input.merchantId, asset: input.asset, network: input.network };
  const [cover, pending] = [
    await refundDebtCover(db, { ...owner, since: new Date(now.getTime() - REFUND_DEBT_WINDOW_MS) }),
    await pendingRefundsOfMerchant(db, input),
  ];
  return { debtMicro: cover.debtMicro + pending, paidOutRecentlyMicro: cover.paidOutRecentlyMicro, unpaidMicro: cover.unpaidMicro };
}

/**
 * Refunds asked for more than `seconds` ago whose run never planned their payout (still `requested`,
 * no payout): left by an API process that died between the row's write and its run's start, or a run
 * not yet at its plan. The sweep starts their runs (an existing run is left as it is).
 */
export async function listUnstartedRefunds(
  db: DatabaseOrTransaction,
  seconds: number,
  limit = 100,
): Promise<Pick<PaymentRefundRow, 'id' | 'paymentId' | 'merchantId'>[]> {
  return db
    .select({ id: paymentRefunds.id, paymentId: paymentRefunds.paymentId, merchantId: paymentRefunds.merchantId })
    .from(paymentRefunds)
    .where(
      and(
        // The partial index's own predicate, literally, so a prepared plan still uses it.
        sql`${paymentRefunds.status} = 'requested'`,
        isNull(paymentRefunds.payoutId),
        sql`${paymentRefunds.createdAt} < now() - make_interval(secs => ${seconds})`,
      ),
    )
    .orderBy(asc(paymentRefunds.createdAt))
    .limit(limit);
}

/**
 * A merchant's refund debt not yet covered, in one statement: their `merchant_debt` balance (a debit
 * balance: completedPaymentRefunded posts it) less the repayments planned and not yet confirmed.
 */
export async function outstandingRefundDebt(
  db: DatabaseOrTransaction,
  input: { merchantId: string; asset: string; network: string },
): Promise<bigint> {
  const [row] = await db.execute<{ debt: string | null }>(
    sql`select ${refundDebtOf({ ...input, debtAccount: ledgerAccount.merchantDebt(input.merchantId) })}::text as debt`,
  );
  return BigInt(row?.debt ?? '0');
}

/**
 * outstandingRefundDebt as an expression, for a statement that reads it beside other things (a
 * payout plan's read, issue 32): each input a value, or an expression of the outer query's columns.
 * Its own tables are aliased, so an outer query may read the same ones.
 */
export function refundDebtOf(owner: {
  merchantId: SQLWrapper | string;
  debtAccount: SQLWrapper | string;
  asset: SQLWrapper | string;
  network: SQLWrapper | string;
}): SQL {
  return sql`(coalesce((select sum(d.amount) from ${ledgerEntries} d
                      where d.account = ${owner.debtAccount} and d.asset = ${owner.asset} and d.network = ${owner.network}), 0)
          - coalesce((select sum(r.amount) from ${payouts} r
                      join ${checkoutSessions} rs on rs.id = r.payment_id
                      where rs.merchant_id = ${owner.merchantId} and r.kind = 'repayment'
                        and r.asset = ${owner.asset} and r.network = ${owner.network}
                        and r.status in ('planned', 'signed', 'broadcast', 'failed')), 0))`;
}
