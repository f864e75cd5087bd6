import { and, asc, eq, like, or, sql } from 'drizzle-orm';
import { requirePositiveExceptionAmount, transferKeyOf } from '../../domain/exceptions';
import type { DatabaseOrTransaction } from '../client';
import { paymentExceptions } from '../schema';

export type PaymentExceptionRow = typeof paymentExceptions.$inferSelect;
export type NewPaymentException = Omit<typeof paymentExceptions.$inferInsert, 'status' | 'createdAt' | 'resolvedAt'>;
export type ExceptionStatus = PaymentExceptionRow['status'];

/**
 * Records an arrival of money once: the first record of (payment, kind, arrival)
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
  if (!transfer) return insertOnce(db, row, arrivalKey);
  // The word (a provider's callback, in an API process) and the log (a worker) of one transfer may be
  // recorded at the same moment: one at a time, each looks for the other's record after the other
  // wrote it, or both find none and write two exceptions for one arrival. A savepoint inside a
  // caller's transaction, whose end releases the lock.
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`svc:exception-arrival:${row.paymentId}:${transfer}`}, 0))`);
    const same = await tx
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
      const [adopted] = await tx
        .update(paymentExceptions)
        .set({ kind: row.kind, arrivalKey, amountMicro: row.amountMicro, token: row.token ?? null, asset: row.asset ?? null, references })
        .where(and(eq(paymentExceptions.id, word.id), eq(paymentExceptions.status, 'open')))
        .returning();
      if (adopted) return { ...adopted, inserted: false };
    }
    return insertOnce(tx, row, arrivalKey);
  });
}

/** The arrival's record under its key, written by this call (`inserted`) or found as an earlier call wrote it. */
async function insertOnce(
  db: DatabaseOrTransaction,
  row: NewPaymentException,
  arrivalKey: string,
): Promise<PaymentExceptionRow & { inserted: boolean }> {
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

/**
 * The payment's open exception holding a log's money with other logs' (an underpaid payment's
 * credits at its end, listed in its references' `logs`), if any: a log's own exception is found by
 * its arrival key instead (findExceptionByArrival).
 */
export async function findOpenExceptionHoldingLog(
  db: DatabaseOrTransaction,
  paymentId: string,
  logKey: string,
): Promise<PaymentExceptionRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentExceptions)
    .where(
      and(
        eq(paymentExceptions.paymentId, paymentId),
        eq(paymentExceptions.status, 'open'),
        sql`${paymentExceptions.references} -> 'logs' @> ${JSON.stringify([logKey])}::jsonb`,
      ),
    )
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

/** Who and what an exception concerns, for the operators' queue. */
export interface ExceptionParties {
  /** The checkout session's merchant; null for a simple order (it has no merchant account). */
  merchantId: string | null;
  /** Where the money came from: the transfer's sender, or the senders of the credits it counts. */
  senders: string[];
  /** The token that arrived: its asset (null for a contract this deployment does not configure), network and contract. */
  asset: string | null;
  network: string | null;
  tokenContract: string | null;
}

/**
 * The parties of each exception, by id: the merchant from its payment, the sender from its
 * transfer (`references.from`) or from the chain credits its references name (`references.logs`:
 * an underpaid or overpaid payment's transfers), the token from the exception (another token
 * arrived) or else the payment's own.
 */
export async function exceptionParties(db: DatabaseOrTransaction, ids: string[]): Promise<Map<string, ExceptionParties>> {
  if (ids.length === 0) return new Map();
  const rows = await db.execute<{
    id: string;
    merchant_id: string | null;
    senders: string[] | null;
    asset: string | null;
    network: string | null;
    token_contract: string | null;
  }>(sql`
    select e.id,
      cs.merchant_id,
      coalesce(
        case when e."references" ? 'from' then jsonb_build_array(e."references"->>'from') end,
        (select jsonb_agg(distinct c.from_address) from chain_credits c
          where c.payment_id = e.payment_id
            and coalesce(e."references"->'logs', '[]'::jsonb) ? (c.network || ':' || lower(c.transaction_hash) || ':' || c.log_index))
      ) as senders,
      case when e.token is not null then e.asset else coalesce(e."references"->>'asset', cs.destination_asset, so.wallet_currency) end as asset,
      coalesce(cs.network, lower(so.wallet_network)) as network,
      coalesce(e.token, e."references"->>'token',
        (select c.token from chain_credits c
          where c.payment_id = e.payment_id and coalesce(e."references"->'logs', '[]'::jsonb) ? (c.network || ':' || lower(c.transaction_hash) || ':' || c.log_index)
          limit 1)) as token_contract
    from payment_exceptions e
    left join checkout_sessions cs on e.payment_kind = 'checkout_session' and cs.id = e.payment_id
    left join simple_orders so on e.payment_kind = 'simple_order' and so.transaction_code = e.payment_id
    where e.id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  return new Map(
    rows.map((r) => [
      r.id,
      { merchantId: r.merchant_id, senders: r.senders ?? [], asset: r.asset, network: r.network, tokenContract: r.token_contract },
    ]),
  );
}
