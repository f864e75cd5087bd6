import { and, desc, eq, getTableColumns, gte, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, depositAddresses, merchants, merchantWallets, paymentLinks, transactions, webhookEndpoints } from '../schema';
import { placeholderValue, preparedFor } from './prepared';
import { checkoutSourcesOf, type PaymentStatus } from '../../domain/payment-status';
import type { PaymentListPosition } from '../../domain/payment-list';

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;
export type NewCheckoutSession = typeof checkoutSessions.$inferInsert;
/** A new row whose values may be SQL expressions evaluated by the insert itself (the wallet as stored). */
export type NewCheckoutSessionValues = PgInsertValue<typeof checkoutSessions>;

export async function insertCheckoutSession(db: DatabaseOrTransaction, row: NewCheckoutSessionValues): Promise<CheckoutSessionRow> {
  const [inserted] = await db.insert(checkoutSessions).values(row).returning();
  return inserted!;
}

/** A new session's own values: what openCheckoutSession decides (the wallet's address and the deposit address are the statement's). */
export type NewSessionValues = Omit<
  NewCheckoutSession,
  'walletAddress' | 'depositAddress' | 'status' | 'mode' | 'createdAt' | 'updatedAt'
> &
  Required<Pick<NewCheckoutSession, 'verification' | 'source' | 'metadata'>>;

const NEW_SESSION_FIELDS = [
  'id',
  'merchantId',
  'source',
  'amountMinor',
  'currency',
  'countryCode',
  'destinationAsset',
  'network',
  'verification',
  'commissionBps',
  'provider',
  'railType',
  'customerEmail',
  'orderId',
  'merchantOrderId',
  'successUrl',
  'cancelUrl',
  'locale',
  'webhookUrl',
  'metadata',
  'siteId',
  'orderKey',
  'paymentLinkId',
  'expiresAt',
] as const satisfies readonly (keyof NewSessionValues)[];

/**
 * A checkout session's insert, the one statement of a creation: the row, its settlement wallet's
 * address as stored now (never one kept from an earlier read), and its deposit address (null for a
 * provider-verified session) with that address's own row, written by the same statement. Built once
 * per database handle and sent as a prepared statement: no SQL building per creation. The wallet's
 * NULL when none is set is refused by the column.
 */
export async function insertNewCheckoutSession(
  db: DatabaseOrTransaction,
  values: NewSessionValues,
  deposit: { derivationIndex: number; address: string } | null,
): Promise<CheckoutSessionRow> {
  const name = deposit ? 'insert_checkout_session_with_deposit' : 'insert_checkout_session';
  const query = preparedFor(db, name, () => {
    const row: Record<string, unknown> = {
      walletAddress: sql`(select ${merchantWallets.address} from ${merchantWallets} where ${merchantWallets.merchantId} = ${sql.placeholder('merchantId')} and ${merchantWallets.asset} = ${sql.placeholder('destinationAsset')} and ${merchantWallets.network} = ${sql.placeholder('network')})`,
      depositAddress: sql.placeholder('depositAddress'),
    };
    for (const field of NEW_SESSION_FIELDS) row[field] = sql.placeholder(field);
    const insert = (on: Pick<typeof db, 'insert'>) =>
      on
        .insert(checkoutSessions)
        .values(row as NewCheckoutSessionValues)
        .returning();
    if (!deposit) return insert(db).prepare(name);
    // Postgres runs a data-modifying WITH to its end whether or not the statement reads from it.
    const allocated = db.$with('allocated').as(
      db
        .insert(depositAddresses)
        .values({
          derivationIndex: placeholderValue('depositIndex'),
          address: placeholderValue('depositAddress'),
          network: placeholderValue('network'),
          paymentReference: placeholderValue('id'),
        })
        .returning({ address: depositAddresses.address }),
    );
    return insert(db.with(allocated)).prepare(name);
  });
  const params: Record<string, unknown> = {
    depositAddress: deposit?.address ?? null,
    ...(deposit ? { depositIndex: deposit.derivationIndex } : {}),
  };
  for (const field of NEW_SESSION_FIELDS) params[field] = values[field] ?? null;
  const [inserted] = await query.execute(params);
  return inserted!;
}

/** Every lookup and most activities read a session by id: prepared. */
export async function findSession(db: DatabaseOrTransaction, id: string): Promise<CheckoutSessionRow | undefined> {
  const query = preparedFor(db, 'find_session', () =>
    db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sql.placeholder('id')))
      .prepare('find_session'),
  );
  const [row] = await query.execute({ id });
  return row;
}

/**
 * The merchant lookup's session, and whether money off the happy path was recorded for it: the
 * exceptions are rare, so their list is read only when this says there is one (one round trip
 * otherwise). Prepared, like findSession. The subquery is written out: drizzle renders a
 * column there unqualified, and `id` would then be the exception's own.
 */
export async function findSessionForLookup(
  db: DatabaseOrTransaction,
  id: string,
): Promise<{ session: CheckoutSessionRow; hasExceptions: boolean } | undefined> {
  const query = preparedFor(db, 'find_session_for_lookup', () =>
    db
      .select({
        session: checkoutSessions,
        hasExceptions: sql<boolean>`exists (select 1 from payment_exceptions e where e.payment_id = checkout_sessions.id)`,
      })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sql.placeholder('id')))
      .prepare('find_session_for_lookup'),
  );
  const [row] = await query.execute({ id });
  return row;
}

export async function lockSession(db: DatabaseOrTransaction, id: string): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).for('update');
  return row;
}

/**
 * A session with whether its merchant takes money (status approved), and the session
 * that paid its payment link (`linkPaidBy`), if it has one and it is paid.
 */
export type SessionWithMerchant = CheckoutSessionRow & { merchantTakesMoney: boolean; linkPaidBy: string | null };

/**
 * The session, its merchant's standing and its link's payer in one round trip; with
 * `lock`, the session's row is locked (FOR UPDATE OF the session only: the merchant's and the link's
 * rows are read, never locked).
 */
export async function findSessionWithMerchant(
  db: DatabaseOrTransaction,
  id: string,
  options: { lock?: boolean } = {},
): Promise<SessionWithMerchant | undefined> {
  // Twice a payment (the credit's lock, the completion's): built once per process (prepared.ts).
  const name = options.lock ? 'lock_session_with_merchant' : 'find_session_with_merchant';
  const query = preparedFor(db, name, () => {
    const select = db
      .select({ session: checkoutSessions, merchantStatus: merchants.status, linkPaidBy: paymentLinks.paidSessionId })
      .from(checkoutSessions)
      .leftJoin(merchants, eq(merchants.id, checkoutSessions.merchantId))
      .leftJoin(paymentLinks, eq(paymentLinks.id, checkoutSessions.paymentLinkId))
      .where(eq(checkoutSessions.id, sql.placeholder('id')));
    return (options.lock ? select.for('update', { of: checkoutSessions }) : select).prepare(name);
  });
  const [row] = await query.execute({ id });
  return row && { ...row.session, merchantTakesMoney: row.merchantStatus === 'approved', linkPaidBy: row.linkPaidBy ?? null };
}

export type TransactionRowOfSession = typeof transactions.$inferSelect;

/** A merchant's enabled webhook endpoint, as an event's deliveries need it (webhooks.ts). */
export interface EnabledEndpoint {
  id: string;
  url: string;
  secretEncrypted: string;
  eventTypes: string[] | null;
}

/**
 * What an event's body, deliveries and first attempts are made of: a session, its transaction row
 * (none before a completion or failure), its merchant's enabled webhook endpoints, oldest first, and
 * the merchant's default signing secret (sealed; null until made).
 */
export interface SessionEventContext {
  session: CheckoutSessionRow;
  transaction: TransactionRowOfSession | null;
  endpoints: EnabledEndpoint[];
  merchantSecret: string | null;
}

// The merchant's side of an event's context, as columns of a statement on the session's row. The
// session's column is named with its table: in an update's RETURNING drizzle writes a column bare,
// and a bare merchant_id inside the subquery would be the endpoint's own (every merchant's endpoints).
const sessionMerchantId = sql.raw('"checkout_sessions"."merchant_id"');
const enabledEndpointsOfSession = sql<EnabledEndpoint[]>`coalesce((
  select json_agg(json_build_object('id', e.id, 'url', e.url, 'secretEncrypted', e.secret_encrypted, 'eventTypes', e.event_types)
    order by e.created_at)
  from ${webhookEndpoints} e where e.merchant_id = ${sessionMerchantId} and e.enabled), '[]'::json)`;
const merchantSecretOfSession = sql<
  string | null
>`(select m.webhook_secret_encrypted from ${merchants} m where m.id = ${sessionMerchantId})`;

/** The select of SessionEventContext, for the caller's WHERE. */
const selectEventContext = (db: DatabaseOrTransaction) =>
  db
    .select({
      session: checkoutSessions,
      transaction: transactions,
      endpoints: enabledEndpointsOfSession,
      merchantSecret: merchantSecretOfSession,
    })
    .from(checkoutSessions)
    .leftJoin(transactions, eq(transactions.paymentId, checkoutSessions.id));

/** SessionEventContext of each of `ids` that exists, in one round trip (every payment of a payout). */
export async function findSessionsForEvent(db: DatabaseOrTransaction, ids: readonly string[]): Promise<Map<string, SessionEventContext>> {
  if (ids.length === 0) return new Map();
  const rows = await selectEventContext(db).where(inArray(checkoutSessions.id, [...ids]));
  return new Map(rows.map((row) => [row.session.id, row]));
}

/** SessionEventContext of one session, in one round trip. */
export async function findSessionForEvent(db: DatabaseOrTransaction, id: string): Promise<SessionEventContext | undefined> {
  // Every event of every payment, a select of every column of two tables: built once per handle (prepared.ts).
  const query = preparedFor(db, 'find_session_for_event', () =>
    selectEventContext(db)
      .where(eq(checkoutSessions.id, sql.placeholder('id')))
      .prepare('find_session_for_event'),
  );
  const [row] = await query.execute({ id });
  return row;
}

/**
 * Moves a session to `to` only from a status the domain's table allows it from. Returns the moved
 * row with the merchant's side of its event (SessionEventContext, without a transaction row), so the
 * event that announces the move needs no read of its own; null when this call did not make the
 * change. The condition makes retried activities harmless.
 */
export async function transitionSession(
  db: DatabaseOrTransaction,
  id: string,
  to: PaymentStatus,
  extra: Partial<Pick<CheckoutSessionRow, 'providerPaymentId' | 'completedAt' | 'cancelReason'>> = {},
): Promise<Omit<SessionEventContext, 'transaction'> | null> {
  // Every transition of every session: built once per target and set of extra columns (prepared.ts).
  const fields = (Object.keys(extra) as (keyof typeof extra)[]).filter((k) => extra[k] !== undefined).sort();
  const name = `transition_session_${to}${fields.map((f) => `_${f}`).join('')}`;
  const query = preparedFor(db, name, () =>
    db
      .update(checkoutSessions)
      .set({ status: to, updatedAt: sql`now()`, ...Object.fromEntries(fields.map((f) => [f, placeholderValue(f)])) })
      .where(and(eq(checkoutSessions.id, sql.placeholder('id')), inArray(checkoutSessions.status, checkoutSourcesOf(to))))
      .returning({ ...getTableColumns(checkoutSessions), endpoints: enabledEndpointsOfSession, merchantSecret: merchantSecretOfSession })
      .prepare(name),
  );
  const [row] = await query.execute({ id, ...Object.fromEntries(fields.map((f) => [f, extra[f]])) });
  if (!row) return null;
  const { endpoints, merchantSecret, ...session } = row;
  return { session, endpoints, merchantSecret };
}

/** The rail a completion proved (payment-labels.ts), written in the completion's transaction. */
export async function setSessionRail(db: DatabaseOrTransaction, id: string, railType: string): Promise<void> {
  await db
    .update(checkoutSessions)
    .set({ railType, updatedAt: sql`now()` })
    .where(eq(checkoutSessions.id, id));
}

/**
 * Keeps the provider payment on the row, and G when `expectedGrossMicro` is given (the first one
 * fixed stands); returns the session's status and provider as of that write.
 */
export async function setProviderPaymentId(
  db: DatabaseOrTransaction,
  id: string,
  providerPaymentId: string,
  expectedGrossMicro: bigint | null = null,
): Promise<Pick<CheckoutSessionRow, 'status' | 'provider'> | undefined> {
  const [row] = await db
    .update(checkoutSessions)
    .set({
      providerPaymentId,
      payPressedAt: sql`coalesce(${checkoutSessions.payPressedAt}, now())`,
      ...(expectedGrossMicro === null
        ? {}
        : { expectedGrossMicro: sql`coalesce(${checkoutSessions.expectedGrossMicro}, ${expectedGrossMicro.toString()}::bigint)` }),
      updatedAt: sql`now()`,
    })
    .where(eq(checkoutSessions.id, id))
    .returning({ status: checkoutSessions.status, provider: checkoutSessions.provider });
  return row;
}

/** The customer's refund address, checked before it is written. */
export async function setRefundAddress(db: DatabaseOrTransaction, id: string, refundAddress: string): Promise<void> {
  await db
    .update(checkoutSessions)
    .set({ refundAddress, updatedAt: sql`now()` })
    .where(eq(checkoutSessions.id, id));
}

/** Sets the expected gross G once: the first quote taken (Pay or the direct rail) stands. Returns the stored G. */
export async function setExpectedGross(db: DatabaseOrTransaction, id: string, micro: bigint): Promise<bigint> {
  const [set] = await db
    .update(checkoutSessions)
    .set({ expectedGrossMicro: micro, updatedAt: sql`now()` })
    .where(and(eq(checkoutSessions.id, id), isNull(checkoutSessions.expectedGrossMicro)))
    .returning({ g: checkoutSessions.expectedGrossMicro });
  if (set) return set.g!;
  // Already set (a second Pay, the other rail): the first quote's G stands.
  const [row] = await db.select({ g: checkoutSessions.expectedGrossMicro }).from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return row!.g!;
}

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
  // Every statement is prepared, and a generic plan (made without the values) misjudges statuses and
  // ranges: it sorted every matching row instead of walking the index until the page is full. As
  // the dashboard's list does (merchant-payments.ts): this call's values plan it, and SET LOCAL ends
  // with the transaction; postgres.js pipelines both statements.
  return db.transaction(async (tx) => {
    const [, rows] = await Promise.all([tx.execute(sql`set local plan_cache_mode = force_custom_plan`), query(tx)]);
    return rows;
  });
}
