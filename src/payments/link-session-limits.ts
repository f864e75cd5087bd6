import { failureRetryAfter, lockFailureSubjects, recordFailures, type FailureLimit } from '../db/queries/auth-failures';
import { AppError } from '../domain/errors';
import type { PaymentContext } from './context';

// Every Pay on a link's page that opens a session costs a workflow, a deposit address the chain
// watchers follow until it ends, and rows; a script could open thousands. A person needs one (the
// page's cookie brings them back to it), a few after a decline or from another device. So new
// sessions are limited per link, which caps what any number of clients can make one link cost, and
// per client address, across links, so that one address cannot use up a link's allowance and lock
// its real customer out. Counted in Postgres (auth_failures, the credential limits' table and
// queries), so every API process counts the same window.

export const LINK_SESSION_WINDOW_SECONDS = 10 * 60;
/** Sessions one link may open in the window: 3 a minute at most, sustained. */
export const MAX_SESSIONS_PER_LINK = 30;
/** Sessions one client address may open from links in the window; a shared (NAT) address keeps room for several people. */
export const MAX_LINK_SESSIONS_PER_ADDRESS = 20;

// Link ids are 30 characters and addresses at most 45; a longer subject need not be stored whole.
const SUBJECT_MAX = 100;

/**
 * Counts one new session of `linkId` for `clientAddress`, or refuses with 429 RateLimited (and the
 * seconds until one is allowed again) when either is at its limit; a refusal counts nothing. The
 * subjects' advisory locks make check and count one step across processes. Called just before the
 * session is opened; an opening that then fails still counted, which only errs on the safe side.
 */
export async function countLinkSession(ctx: PaymentContext, linkId: string, clientAddress: string): Promise<void> {
  const limits: FailureLimit[] = [
    { dimension: 'link', subject: linkId.slice(0, SUBJECT_MAX), max: MAX_SESSIONS_PER_LINK },
    { dimension: 'link_ip', subject: clientAddress.slice(0, SUBJECT_MAX), max: MAX_LINK_SESSIONS_PER_ADDRESS },
  ];
  const retryAfter = await ctx.db.transaction(async (tx) => {
    await lockFailureSubjects(tx, limits);
    let wait: number | null = null;
    for (const limit of limits) {
      const seconds = await failureRetryAfter(tx, limit, LINK_SESSION_WINDOW_SECONDS);
      if (seconds !== null) wait = Math.max(wait ?? 0, seconds);
    }
    if (wait === null) await recordFailures(tx, limits);
    return wait;
  });
  if (retryAfter !== null) {
    throw new AppError('RateLimited', 'Too many payments were started from this link or this address. Try again later.', {
      retryAfterSeconds: retryAfter,
    });
  }
}
