import { and, eq, isNull, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, depositAddresses, merchants, merchantWallets, paymentLinks } from '../schema';
import { placeholderValue, preparedFor } from './prepared';

// A checkout session's row: created, read, locked and its fields set. Its status moves and the
// events announcing them are checkout-session-events.ts, the merchant's list merchant-checkout-sessions.ts.

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

/** The rail a completion proved (payment-labels.ts), written in the completion's transaction. */
export async function setSessionRail(db: DatabaseOrTransaction, id: string, railType: string): Promise<void> {
  await db
    .update(checkoutSessions)
    .set({ railType, updatedAt: sql`now()` })
    .where(eq(checkoutSessions.id, id));
}

/** Keeps the provider payment on the row; returns the session's status and provider as of that write. */
export async function setProviderPaymentId(
  db: DatabaseOrTransaction,
  id: string,
  providerPaymentId: string,
): Promise<Pick<CheckoutSessionRow, 'status' | 'provider'> | undefined> {
  const [row] = await db
    .update(checkoutSessions)
    .set({
      providerPaymentId,
      payPressedAt: sql`coalesce(${checkoutSessions.payPressedAt}, now())`,
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
