import { patched } from '@temporalio/workflow';

/** Whether a run takes a patch's new branch. */
export type Feature = (patchId: string) => boolean;

/**
 * The patches a checkout session started at each engine version takes without asking patched().
 * patched() keeps recorded runs replaying, but in a new run every first use of a patch costs a
 * marker and an upsert of the TemporalChangeVersion search attribute (a visibility write on the
 * server): 10 of a settled session's 33 history events. A run started with `engine: N` (in its
 * input, so replay sees the same) takes the new branch of every patch listed up to N directly; runs
 * without it ask patched() as before. A patch added later is not listed: runs of engine N ask
 * patched() for it until a new engine version folds it in.
 */
const FOLDED_PATCHES: Record<number, readonly string[]> = {
  1: [
    'local-database-writes',
    'chain-proof',
    'expire-on-demand',
    'exception-events',
    'link-told-from-workflow',
    'close-provider-payments',
    'payout',
    'payouts-in-one-activity',
    'deliveries-from-activity',
  ],
  2: ['deliveries-in-run', 'transitions-with-events'],
  3: ['delivery-first-attempt-local', 'deadline-timers'],
};

/** The engine version new checkout sessions start with. */
export const CHECKOUT_SESSION_ENGINE = 3;

export function featuresOf(engine: number | undefined): Feature {
  const folded = new Set(Object.entries(FOLDED_PATCHES).flatMap(([version, ids]) => (Number(version) <= (engine ?? 0) ? ids : [])));
  return (patchId) => folded.has(patchId) || patched(patchId);
}
