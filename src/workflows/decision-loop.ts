import { condition, sleep } from '@temporalio/workflow';
import { depositNewsKey, type DepositFact } from '../domain/deposit-fact';

// What every payment run does around its kind's `decide` (src/domain): a queue of messages, one
// timer per deadline, each message seen once, and the effects run one at a time with each report
// decided before the next effect.

/** A kind's pure rules: the next state and what must be done. */
export type Decide<S, E, F> = (state: S, event: E) => { state: S; effects: F[] };

/**
 * One event through the rules: decide, then run the effects in order; what an effect reports is the
 * next event, decided before the following effect. Returns the state after all of it.
 */
export async function handleEvent<S, E, F>(
  decide: Decide<S, E, F>,
  perform: (effect: F) => Promise<E | null>,
  state: S,
  event: E,
): Promise<S> {
  const decision = decide(state, event);
  let current = decision.state;
  for (const effect of decision.effects) {
    const report = await perform(effect);
    if (report) current = await handleEvent(decide, perform, current, report);
  }
  return current;
}

/** The run's messages in arrival order, and the wait for the next one or a deadline. */
export class Inbox<E> {
  private readonly items: E[] = [];
  // One timer per deadline for the whole run, however often a message wakes it.
  private readonly timers = new Map<number, Promise<void>>();

  push(event: E): void {
    this.items.push(event);
  }

  shift(): E | undefined {
    return this.items.shift();
  }

  get size(): number {
    return this.items.length;
  }

  /** The next message, or `atDeadline(now)` once `deadline` (epoch ms) has passed with none. */
  async next(deadline: number, atDeadline: (nowMs: number) => E): Promise<E> {
    if (this.items.length === 0 && deadline > Date.now()) {
      if (!Number.isFinite(deadline)) await condition(() => this.items.length > 0);
      else {
        if (!this.timers.has(deadline)) this.timers.set(deadline, sleep(deadline - Date.now()));
        // A wait the timer ended leaves its condition pending; the next message resolves it, harmlessly.
        await Promise.race([condition(() => this.items.length > 0), this.timers.get(deadline)]);
      }
    }
    return this.items.shift() ?? atDeadline(Date.now());
  }
}

/**
 * Watchers and providers re-send (at least once): each log in its block and each provider event is
 * news once. A removal followed by the same log in the same block again (re-mined) is news again.
 */
export function onceEach() {
  const seen = new Set<string>();
  const once = (key: string) => !seen.has(key) && !!seen.add(key);
  return {
    deposit(fact: DepositFact): boolean {
      if (!once(depositNewsKey(fact))) return false;
      if (fact.kind === 'removed') seen.delete(depositNewsKey({ ...fact, kind: 'credited' }));
      return true;
    },
    providerEvent: (eventId: string) => once(`provider:${eventId}`),
  };
}
