import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, ledgerEntries, merchants, transactions, webhookEndpoints } from '../schema';
import type { Posting } from '../../domain/ledger';
import { ledgerRows } from './ledger';
import { findTransaction, type TransactionInsert } from './transactions';
import { placeholderRows, placeholderValue, preparedFor } from './prepared';
import { checkoutSourcesOf, type PaymentStatus } from '../../domain/payment-status';
import type { CheckoutSessionRow } from './checkout-sessions';

// A session's status moves, and what the events announcing them are made of, read with the session in
// the same statement so an event needs no read of its own.

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

/** How a completion moves its session (completeSessionRow). */
interface CompletionMove {
  /** The rail the completion proved: a wallet's transfer pays a session opened for the provider too. */
  railType: string;
  completedAt: Date;
  providerPaymentId?: string | null | undefined;
}

/**
 * A completion's writes in one statement: its transaction row (once per payment) with the ledger
 * lines of its postings, and the session moved to `completed` on the rail that proved it, returned
 * with the merchant's side of its event, as transitionSession returns a move. The caller holds the
 * session's lock. `moved` is null when this call did not make the move (a retry whose first attempt
 * did); `transaction` is the row stored, by this call or the first.
 */
export async function completeSessionRow(
  db: DatabaseOrTransaction,
  row: TransactionInsert,
  postings: Posting[],
  move: CompletionMove,
): Promise<{ transaction: TransactionRowOfSession; moved: SessionEventContext | null }> {
  const { shape, placeholders, values } = placeholderRows([row]);
  const lines = placeholderRows(ledgerRows(postings), 'line_');
  const naming = move.providerPaymentId ? ' naming its provider payment' : '';
  const name = `complete_session ${shape}${lines.shape ? ` with ${lines.shape}` : ''}${naming}`;
  // Every completion, two tables' every column: built once per shape (prepared.ts). Postgres runs
  // each data-modifying WITH to its end whether or not the statement reads from it.
  const query = preparedFor(db, name, () => {
    const posted = () =>
      db.$with('posted').as(
        db
          .insert(ledgerEntries)
          .values(lines.placeholders)
          .onConflictDoNothing({ target: [ledgerEntries.postingId, ledgerEntries.line] })
          .returning({ id: ledgerEntries.id }),
      );
    const inserted = db
      .$with('inserted')
      .as(db.insert(transactions).values(placeholders).onConflictDoNothing({ target: transactions.paymentId }).returning());
    const moved = db.$with('moved').as(
      db
        .update(checkoutSessions)
        .set({
          status: 'completed',
          updatedAt: sql`now()`,
          railType: placeholderValue('railType'),
          completedAt: placeholderValue('completedAt'),
          ...(naming ? { providerPaymentId: placeholderValue('providerPaymentId') } : {}),
        })
        .where(and(eq(checkoutSessions.id, sql.placeholder('id')), inArray(checkoutSessions.status, checkoutSourcesOf('completed'))))
        .returning({
          ...getTableColumns(checkoutSessions),
          endpoints: enabledEndpointsOfSession.as('endpoints'),
          merchantSecret: merchantSecretOfSession.as('merchant_secret'),
        }),
    );
    const fieldsOf = <T extends object>(cte: T, table: object) =>
      Object.fromEntries(Object.keys(getTableColumns(table as never)).map((k) => [k, (cte as Record<string, unknown>)[k]]));
    return db
      .with(...(lines.shape ? [posted(), inserted, moved] : [inserted, moved]))
      .select({
        transaction: fieldsOf(inserted, transactions),
        session: fieldsOf(moved, checkoutSessions),
        endpoints: moved.endpoints,
        merchantSecret: moved.merchantSecret,
      } as never)
      .from(inserted)
      .fullJoin(moved, sql`true`)
      .prepare(name);
  });
  const [result] = (await query.execute({
    ...values,
    ...lines.values,
    id: row.paymentId,
    railType: move.railType,
    completedAt: move.completedAt,
    ...(naming ? { providerPaymentId: move.providerPaymentId } : {}),
  })) as {
    transaction: TransactionRowOfSession | null;
    session: CheckoutSessionRow | null;
    endpoints: EnabledEndpoint[] | null;
    merchantSecret: string | null;
  }[];
  const transaction = result?.transaction?.paymentId != null ? result.transaction : (await findTransaction(db, row.paymentId))!;
  const session = result?.session?.id != null ? result.session : null;
  return {
    transaction,
    moved: session ? { session, transaction, endpoints: result!.endpoints ?? [], merchantSecret: result!.merchantSecret } : null,
  };
}
