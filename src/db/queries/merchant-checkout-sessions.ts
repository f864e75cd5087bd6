import { and, desc, eq, getTableColumns, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions } from '../schema';
import type { PaymentStatus } from '../../domain/payment-status';
import type { PaymentListPosition } from '../../domain/payment-list';
import type { CheckoutSessionRow } from './checkout-sessions';
import { plannedForValues } from './planned-for-values';

// The merchant API's list of its checkout sessions, keyset-paged.

/** What the merchant API's session list asks for: one merchant's sessions, optionally narrowed. */
export interface MerchantSessionListInput {
  merchantId: string;
  statuses?: readonly PaymentStatus[] | undefined;
  /** Matches the merchant's orderId or merchantOrderId exactly (either is "your order reference"). */
  orderId?: string | undefined;
  /** Created at or after. */
  createdFrom?: Date | undefined;
  /** Created before. */
  createdTo?: Date | undefined;
  /** Rows strictly older than this position (none: from the newest). */
  after?: PaymentListPosition | undefined;
  limit: number;
}

/** Postgres's own text of created_at to the microsecond, as a list cursor holds it (domain/payment-list.ts). */
const listPosition = sql<string>`to_char(${checkoutSessions.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Where a merchant's session stands in the list; undefined when the session is not the merchant's. */
export async function findMerchantSessionPosition(db: DatabaseOrTransaction, merchantId: string, id: string): Promise<string | undefined> {
  const [row] = await db
    .select({ position: listPosition })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.merchantId, merchantId)));
  return row?.position;
}

/** A listed session with its position to the microsecond, which the next page's cursor needs (domain/payment-list.ts). */
export type ListedCheckoutSession = CheckoutSessionRow & { position: string };

/**
 * One merchant's sessions, newest first, keyset-paged on (created_at, id) as the dashboard's payment
 * list is (merchant-payments.ts): a page costs the same at any depth and rows created while the
 * merchant pages never shift or repeat one. Read from checkout_sessions_merchant_idx (walked
 * backwards), or checkout_sessions_merchant_status_idx with statuses, or the order-id indexes.
 */
export async function listMerchantCheckoutSessions(
  db: DatabaseOrTransaction,
  input: MerchantSessionListInput,
): Promise<ListedCheckoutSession[]> {
  const s = checkoutSessions;
  const where: (SQL | undefined)[] = [
    eq(s.merchantId, input.merchantId),
    input.statuses?.length ? inArray(s.status, [...input.statuses]) : undefined,
    input.orderId !== undefined ? or(eq(s.orderId, input.orderId), eq(s.merchantOrderId, input.orderId)) : undefined,
    input.createdFrom ? gte(s.createdAt, input.createdFrom) : undefined,
    input.createdTo ? lt(s.createdAt, input.createdTo) : undefined,
    // A row comparison, which the index answers as one range (merchant-payments.ts has the figures).
    input.after ? sql`(${s.createdAt}, ${s.id}) < (${input.after.at}::timestamptz, ${input.after.id})` : undefined,
  ];
  const query = (q: DatabaseOrTransaction) =>
    q
      .select({
        ...getTableColumns(s),
        position: listPosition,
      })
      .from(s)
      .where(and(...where))
      .orderBy(desc(s.createdAt), desc(s.id))
      .limit(input.limit);
  if (!input.statuses?.length && !input.createdFrom && !input.createdTo) return query(db);
  return plannedForValues(db, query);
}
