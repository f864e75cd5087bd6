import type { Database, DatabaseOrTransaction } from '../../db/client';
import { failureRetryAfter, lockFailureSubjects, recordFailures, type FailureLimit } from '../../db/queries/auth-failures';
import { constantTimeEqual } from '../../domain/credentials';
import { AppError } from '../../domain/errors';
import { clientAddressBlock, mailboxAddress } from '../../domain/limit-subjects';

// Failed credential attempts on plugin connect are limited to 5 in 15 minutes per
// merchant_id and 20 per client IP; failed admin tokens to 20 a minute per client
// address, and failed metrics tokens the same, counted apart. Beyond that, 429 RateLimited with
// Retry-After. The counts live in Postgres (auth_failures) so every API process enforces the same
// limit. The client address is request.ip, which believes X-Forwarded-For only from the proxies in
// TRUST_PROXY.

export const FAILURE_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_MERCHANT = 5;
export const MAX_FAILURES_PER_IP = 20;
export const ADMIN_FAILURE_WINDOW_SECONDS = 60;
export const MAX_ADMIN_FAILURES_PER_IP = 20;

// Merchant ids are 20 characters; a longer subject is junk and need not be stored whole.
const SUBJECT_MAX = 100;

type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'limited'; retryAfter: number } | { kind: 'failed'; error: unknown };

/**
 * Runs `attempt` (the credential check) under the limits of the merchant id as sent and the client
 * IP. While either is over its limit nothing is checked at all, so right credentials get the same
 * 429 as wrong ones and the answer says nothing. An attempt that throws Unauthorized counts as a
 * failure on both; other outcomes (success, an unapproved account) do not.
 */
export async function withCredentialLimits<T>(
  db: Database,
  subjects: { merchantId: string; ip: string },
  attempt: (tx: DatabaseOrTransaction) => Promise<T>,
): Promise<T> {
  const limits: FailureLimit[] = [
    { dimension: 'merchant', subject: subjects.merchantId.slice(0, SUBJECT_MAX), max: MAX_FAILURES_PER_MERCHANT },
    { dimension: 'ip', subject: subjects.ip.slice(0, SUBJECT_MAX), max: MAX_FAILURES_PER_IP },
  ];
  return withFailureLimits(db, limits, FAILURE_WINDOW_SECONDS, attempt);
}

// Dashboard sign-in: 5 failures in 15 minutes for one account from one address, and
// 20 from one address whatever the account. Those two count only failures from that address, so
// someone guessing from elsewhere cannot lock a person out of their own account; but a guesser with
// many addresses would never meet them. So failures for one account are also counted whatever the
// address, to a higher bound: past it, sign-in to that account is refused from everywhere for the
// rest of the window (the price of stopping a spread-out guesser; a password reset through the mailed
// link lifts it, see clearSignInFailures), and the account's person is mailed a notice, once a window.
// Here and below, one client address is an IPv4 address or an IPv6 /64 (clientAddressBlock): a single
// IPv6 host may use every address of its /64.
export const MAX_SIGN_IN_FAILURES_PER_ACCOUNT = 5;
export const MAX_SIGN_IN_FAILURES_PER_IP = 20;
export const MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE = 10;

/**
 * Runs a dashboard sign-in under the limits above; a wrong password (Unauthorized) counts on all
 * three. When the account's own bound is reached, `warnAccount` writes its notice (in the attempt's
 * transaction), at most once a window.
 */
export async function withSignInLimits<T>(
  db: Database,
  subjects: { email: string; ip: string },
  attempt: (tx: DatabaseOrTransaction) => Promise<T>,
  warnAccount?: (tx: DatabaseOrTransaction) => Promise<void>,
): Promise<T> {
  const ip = clientAddressBlock(subjects.ip).slice(0, SUBJECT_MAX);
  const email = subjects.email.slice(0, 254);
  const account: FailureLimit = { dimension: 'dashboard_account_any', subject: email, max: MAX_SIGN_IN_FAILURES_PER_ACCOUNT_ANYWHERE };
  const limits: FailureLimit[] = [
    { dimension: 'dashboard_account', subject: `${email} ${ip}`, max: MAX_SIGN_IN_FAILURES_PER_ACCOUNT },
    { dimension: 'dashboard_ip', subject: ip, max: MAX_SIGN_IN_FAILURES_PER_IP },
    account,
  ];
  const notice = warnAccount && {
    limit: account,
    once: { dimension: 'dashboard_sign_in_notice', subject: email, max: 1 } as const,
    send: warnAccount,
  };
  return withFailureLimits(db, limits, FAILURE_WINDOW_SECONDS, attempt, { notice });
}

// "Forgot password": every request counts, found address or not (each may mail someone),
// under the same numbers as sign-in, counted apart from it: 5 in 15 minutes for one address from one
// client address, 20 from one client address.

/** Runs a password-reset request under the limits above; every request counts, whatever it found. */
export async function withResetRequestLimits<T>(
  db: Database,
  subjects: { email: string; ip: string },
  attempt: (tx: DatabaseOrTransaction) => Promise<T>,
): Promise<T> {
  const ip = clientAddressBlock(subjects.ip).slice(0, SUBJECT_MAX);
  const limits: FailureLimit[] = [
    { dimension: 'dashboard_reset_account', subject: `${subjects.email.slice(0, 254)} ${ip}`, max: MAX_SIGN_IN_FAILURES_PER_ACCOUNT },
    { dimension: 'dashboard_reset_ip', subject: ip, max: MAX_SIGN_IN_FAILURES_PER_IP },
  ];
  return withFailureLimits(db, limits, FAILURE_WINDOW_SECONDS, attempt, { countEvery: true });
}

// Dashboard sign-up: every request counts (each mails someone, at an address the caller chose, and may
// open a merchant): 10 an hour from one client address, and 3 an hour for one inbox (name+tag@ counts
// as name@, where it is delivered), found or not, so the 429 says nothing about who has an account.
export const SIGN_UP_WINDOW_SECONDS = 3600;
export const MAX_SIGN_UPS_PER_IP = 10;
export const MAX_SIGN_UPS_PER_EMAIL = 3;

/** Counts one sign-up request, or refuses it with 429 RateLimited while either subject is at its limit. */
export async function countSignUp(db: Database, subjects: { email: string; ip: string }): Promise<void> {
  const limits: FailureLimit[] = [
    { dimension: 'dashboard_signup_ip', subject: clientAddressBlock(subjects.ip).slice(0, SUBJECT_MAX), max: MAX_SIGN_UPS_PER_IP },
    { dimension: 'dashboard_signup_email', subject: mailboxAddress(subjects.email).slice(0, 254), max: MAX_SIGN_UPS_PER_EMAIL },
  ];
  await withFailureLimits(db, limits, SIGN_UP_WINDOW_SECONDS, async () => undefined, { countEvery: true });
}

// The simple API has no key, so what it can limit is the client address: each order costs a
// workflow, a deposit address watched until it ends, and rows. A shop's server opens its customers'
// orders from one address, so the default is generous; a script opening thousands meets it.
export const SIMPLE_ORDER_WINDOW_SECONDS = 60;

/** Counts one simple-API order for the client address, or refuses it with 429 RateLimited at `perMinute`. */
export async function countSimpleOrder(db: Database, ip: string, perMinute: number): Promise<void> {
  const limit: FailureLimit = { dimension: 'simple_order_ip', subject: clientAddressBlock(ip).slice(0, SUBJECT_MAX), max: perMinute };
  const retryAfter = await db.transaction(async (tx) => {
    await lockFailureSubjects(tx, [limit]);
    const wait = await failureRetryAfter(tx, limit, SIMPLE_ORDER_WINDOW_SECONDS);
    if (wait === null) await recordFailures(tx, [limit]);
    return wait;
  });
  if (retryAfter !== null) {
    throw new AppError('RateLimited', `At most ${perMinute} orders a minute may be opened from one address. Try again later.`, {
      retryAfterSeconds: retryAfter,
    });
  }
}

/** The operator's bearer tokens, each limited on its own count of failures per client address. */
export type OperatorToken = 'admin' | 'metrics';
const OPERATOR_DIMENSION = { admin: 'admin_ip', metrics: 'metrics_ip' } as const satisfies Record<OperatorToken, FailureLimit['dimension']>;

/**
 * Checks an operator token (ADMIN_TOKEN, METRICS_TOKEN) under the per-address limit.
 * The right token is checked first and always passes, without touching Postgres: a client address
 * can be shared (a NAT, an office, a proxy not in TRUST_PROXY), and someone else's wrong guesses
 * there must not lock the operator out. Only a wrong token counts, and only a wrong token is refused
 * with 429 while the address is over its limit. A request with no token guesses nothing: 401,
 * uncounted.
 */
export async function checkOperatorToken(
  db: Database,
  token: OperatorToken,
  request: { ip: string; presented: string | null },
  expected: string,
  denied: () => AppError,
): Promise<void> {
  if (!request.presented) throw denied();
  if (constantTimeEqual(request.presented, expected)) return;
  const limits: FailureLimit[] = [
    { dimension: OPERATOR_DIMENSION[token], subject: request.ip.slice(0, SUBJECT_MAX), max: MAX_ADMIN_FAILURES_PER_IP },
  ];
  await withFailureLimits(db, limits, ADMIN_FAILURE_WINDOW_SECONDS, () => Promise.reject(denied()));
}

/** A notice written when `limit` is reached by a failure, once a window (counted under `once`). */
interface LimitNotice {
  limit: FailureLimit;
  once: FailureLimit;
  send: (tx: DatabaseOrTransaction) => Promise<void>;
}

async function withFailureLimits<T>(
  db: Database,
  limits: FailureLimit[],
  windowSeconds: number,
  attempt: (tx: DatabaseOrTransaction) => Promise<T>,
  { countEvery = false, notice }: { countEvery?: boolean; notice?: LimitNotice | undefined } = {},
): Promise<T> {
  const outcome = await db.transaction(async (tx): Promise<Outcome<T>> => {
    await lockFailureSubjects(tx, limits);
    let retryAfter: number | null = null;
    for (const limit of limits) {
      const wait = await failureRetryAfter(tx, limit, windowSeconds);
      if (wait !== null) retryAfter = Math.max(retryAfter ?? 0, wait);
    }
    if (retryAfter !== null) return { kind: 'limited', retryAfter };
    try {
      const value = await attempt(tx);
      if (countEvery) await recordFailures(tx, limits);
      return { kind: 'ok', value };
    } catch (error) {
      // Recorded in this transaction, which commits: the failure must count even though it throws.
      if (error instanceof AppError && error.code === 'Unauthorized') {
        await recordFailures(tx, limits);
        // The notice's subject is the limit's, whose advisory lock this transaction holds: two
        // failures at once cannot both find no notice in the window.
        if (notice && (await failureRetryAfter(tx, notice.limit, windowSeconds)) !== null) {
          if ((await failureRetryAfter(tx, notice.once, windowSeconds)) === null) {
            await recordFailures(tx, [notice.once]);
            await notice.send(tx);
          }
        }
      }
      return { kind: 'failed', error };
    }
  });
  if (outcome.kind === 'ok') return outcome.value;
  if (outcome.kind === 'limited') {
    throw new AppError('RateLimited', 'Too many failed attempts. Try again later.', { retryAfterSeconds: outcome.retryAfter });
  }
  throw outcome.error;
}

/** What a request's key has left in its window, as the RateLimit headers say it. */
export interface KeyAllowance {
  limit: number;
  remaining: number;
  /** Seconds until the window starts over (at least 1). */
  reset: number;
}

/**
 * Requests per API key per second, in fixed one-second windows. Counted in memory by each API
 * process, not in Postgres: a write per request would cost more than the requests it limits, and
 * the limit is there to keep one key from taking a process's whole capacity. Behind a balancer of
 * N processes a key may therefore make up to N times the limit.
 */
export function createKeyRateLimiter(perSecond: number, now: () => number = Date.now) {
  let window = -1;
  // Only the keys seen in the current second: the map starts over with each window.
  let counts = new Map<string, number>();
  return {
    /** Counts one request of `keyId`; `allowed` is false, and nothing counted, once the window is full. */
    take(keyId: string): KeyAllowance & { allowed: boolean } {
      const at = now();
      const current = Math.floor(at / 1000);
      if (current !== window) {
        window = current;
        counts = new Map();
      }
      const reset = Math.max(1, Math.ceil(((current + 1) * 1000 - at) / 1000));
      const used = counts.get(keyId) ?? 0;
      if (used >= perSecond) return { allowed: false, limit: perSecond, remaining: 0, reset };
      counts.set(keyId, used + 1);
      return { allowed: true, limit: perSecond, remaining: perSecond - used - 1, reset };
    },
  };
}

export type KeyRateLimiter = ReturnType<typeof createKeyRateLimiter>;

/**
 * The rate limit headers of draft-ietf-httpapi-ratelimit-headers-07: the policy (`100;w=1`, a
 * hundred requests a one-second window) and where the key stands in it (`limit=100, remaining=42,
 * reset=1`).
 */
export function rateLimitHeaders(allowance: KeyAllowance): Record<string, string> {
  return {
    'ratelimit-policy': `${allowance.limit};w=1`,
    ratelimit: `limit=${allowance.limit}, remaining=${allowance.remaining}, reset=${allowance.reset}`,
  };
}
