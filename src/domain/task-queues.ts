/**
 * Payouts run on a task queue of their own beside the workflows' queue: sending and confirming a
 * transfer is slow, chain-bound work, and a payment backlog should be accepted and announced before
 * the settlements behind it are paid out, not wait its turn among them. Workers poll both queues
 * (the payouts one with a small concurrency of its own); workflows derive the name from their queue.
 */
export function payoutTaskQueue(taskQueue: string): string {
  return `${taskQueue}-payouts`;
}
