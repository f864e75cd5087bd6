import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TestContext } from './harness';
import { eventually } from './http';

// Waits on outcomes for tests that prove nothing more happens: instead of sleeping "long enough",
// they wait until whatever could still act has nothing under way, then read the rows. A run waiting
// on a signal or a timer counts as at rest: nothing happens until something new arrives or the timer
// fires, and the tests that rely on a timer wait for its outcome instead.

/** Nothing under way in a run: closed, or open with no workflow task, activity or child pending. */
async function runAtRest(temporal: Client, workflowId: string): Promise<boolean> {
  try {
    const { status, raw } = await temporal.workflow.getHandle(workflowId).describe();
    if (status.name !== 'RUNNING') return true;
    return !raw.pendingWorkflowTask && (raw.pendingActivities ?? []).length === 0 && (raw.pendingChildren ?? []).length === 0;
  } catch (err) {
    // Never started: nothing can happen in it.
    if (err instanceof WorkflowNotFoundError) return true;
    throw err;
  }
}

/** Waits until each of these runs has nothing under way (see runAtRest). */
export async function runsAtRest(temporal: Client, workflowIds: readonly string[], timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => Promise.all(workflowIds.map((id) => runAtRest(temporal, id))),
    (rested) => rested.every(Boolean),
    timeoutMs,
    `runs ${workflowIds.join(', ')} at rest`,
  );
}

/**
 * Waits until nothing is under way for a payment: its own run, its exceptions' and refunds' runs at
 * rest, and none of its webhook deliveries pending (a retry waiting out its interval is pending).
 * Read again after each other, so an exception recorded while waiting is waited for too.
 */
export async function paymentAtRest(ctx: Pick<TestContext, 'db' | 'temporal'>, paymentId: string, timeoutMs = 20_000): Promise<void> {
  const runsOf = async () => {
    const rows = await ctx.db.sql`select id from payment_exceptions where payment_id = ${paymentId}
      union all select id from payment_refunds where payment_id = ${paymentId}`;
    return [paymentId, ...rows.map((r) => r.id as string)];
  };
  await eventually(
    async () => {
      const runs = await runsOf();
      const rested = await Promise.all(runs.map((id) => runAtRest(ctx.temporal, id)));
      const [pending] = await ctx.db
        .sql`select count(*)::int as n from webhook_deliveries where payment_id = ${paymentId} and status = 'pending'`;
      // The same runs as before the reads: none was added meanwhile.
      const again = await runsOf();
      return rested.every(Boolean) && pending!.n === 0 && again.length === runs.length;
    },
    (atRest) => atRest,
    timeoutMs,
    `payment ${paymentId} at rest`,
  );
}

/** Waits until a network's chain watcher has scanned through `block` (its stored head), and confirmed it when asked. */
export async function watcherPast(
  ctx: Pick<TestContext, 'db'>,
  network: string,
  block: bigint,
  { confirmed = false, timeoutMs = 20_000 }: { confirmed?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  await eventually(
    async () => {
      const [row] = await ctx.db.sql`select head, confirmed_through from chain_cursors where network = ${network}`;
      const reached = row ? BigInt((confirmed ? row.confirmed_through : row.head) ?? -1) : -1n;
      return reached;
    },
    (reached) => reached >= block,
    timeoutMs,
    `the ${network} watcher past block ${block}`,
  );
}
