import { and, desc, eq, gt, lte, or, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { authFailures } from '../schema';

export type FailureDimension = (typeof authFailures.$inferInsert)['dimension'];

export interface FailureLimit {
  dimension: FailureDimension;
  subject: string;
  /** Failures within the window at which further attempts are refused. */
  max: number;
}

/**
 * Takes the transaction-scoped advisory lock of each (dimension, subject), in a fixed order so two
 * requests cannot deadlock. Attempts on one subject then run one at a time across every API process,
 * so concurrent guesses cannot all slip under the limit before any of them is recorded.
 */
export async function lockFailureSubjects(tx: DatabaseOrTransaction, limits: FailureLimit[]): Promise<void> {
  const keys = limits.map((l) => `auth_failures:${l.dimension}:${l.subject}`).sort();
  for (const key of keys) await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

/**
 * Seconds until attempts on this subject are allowed again, or null when they are allowed now.
 * Postgres's clock decides the window, so every API process agrees on it.
 */
export async function failureRetryAfter(tx: DatabaseOrTransaction, limit: FailureLimit, windowSeconds: number): Promise<number | null> {
  const window = sql`now() - make_interval(secs => ${windowSeconds})`;
  const where = and(eq(authFailures.dimension, limit.dimension), eq(authFailures.subject, limit.subject));
  // Old rows of this subject are of no further use.
  await tx.delete(authFailures).where(and(where, lte(authFailures.occurredAt, window)));
  const recent = await tx
    .select({ reopensIn: sql<string>`extract(epoch from (${authFailures.occurredAt} + make_interval(secs => ${windowSeconds}) - now()))` })
    .from(authFailures)
    .where(and(where, gt(authFailures.occurredAt, window)))
    .orderBy(desc(authFailures.occurredAt))
    .limit(limit.max);
  // When the max-th most recent failure leaves the window, the count drops below the limit.
  if (recent.length < limit.max) return null;
  return Math.max(1, Math.ceil(Number(recent[limit.max - 1]!.reopensIn)));
}

export async function recordFailures(tx: DatabaseOrTransaction, limits: FailureLimit[]): Promise<void> {
  if (limits.length === 0) return;
  await tx.insert(authFailures).values(limits.map((l) => ({ dimension: l.dimension, subject: l.subject })));
}

/**
 * Forgets the failed sign-ins counted against one dashboard account, under the subjects
 * withSignInLimits (src/api/plugins/rate-limit.ts) gives them: the address alone, and the address
 * with each client address. For a password reset: its person proved they hold the inbox, and the
 * new password is theirs, so someone else's guesses must no longer keep them out.
 */
export async function clearSignInFailures(tx: DatabaseOrTransaction, email: string): Promise<void> {
  await tx
    .delete(authFailures)
    .where(
      or(
        and(eq(authFailures.dimension, 'dashboard_account_any'), eq(authFailures.subject, email)),
        and(eq(authFailures.dimension, 'dashboard_account'), sql`starts_with(${authFailures.subject}, ${`${email} `})`),
      ),
    );
}
