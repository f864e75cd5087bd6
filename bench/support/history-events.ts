import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
import { SETTLEMENT_WORKFLOW } from '../../src/temporal/settlement-schedules';
import type { SettlementRunOutcome } from '../../src/workflows/settlement/workflow';

// The Temporal history a side's payments cost, read from the server once its runs have closed (the
// payment figures' history events per payment).

/** A settlement run that swept nothing and paid nothing: the 1 s interval's cost, not a payment's. */
function emptySettlementRun(history: proto.api.history.v1.IHistory): boolean {
  const completed = history.events?.find((e) => e.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes;
  const payload = completed?.result?.payloads?.[0];
  if (!payload) return false;
  const outcome = defaultPayloadConverter.fromPayload<SettlementRunOutcome>(payload);
  return outcome.sweeps === 0 && outcome.payouts === 0 && outcome.failed === 0;
}

/**
 * Temporal history events per payment: every workflow the side ran on its task queue (children and
 * any delivery workflows included; ours' settlement runs that swept or paid), over its payments,
 * each counted once it has closed (waited for up to `settleMs`), so the figure is whole runs, not
 * where each run was when counted. Also what they are: events per payment by workflow type and event
 * type, and ours' empty settlement runs apart (the bench log).
 */
export async function historyEventsPerPayment(
  temporal: Client,
  taskQueue: string,
  payments: number,
  log: (line: string) => void,
  options: { settleMs?: number; startedBefore?: Date; label?: string } = {},
): Promise<number> {
  const until = Date.now() + (options.settleMs ?? 120_000);
  // Only the runs started before a moment: the rounds before it, when later rounds ran on the same queue.
  const query = options.startedBefore
    ? `TaskQueue = "${taskQueue}" AND StartTime < "${options.startedBefore.toISOString()}"`
    : `TaskQueue = "${taskQueue}"`;
  const open = async () => (await temporal.workflow.count(`${query} AND ExecutionStatus = "Running"`)).count;
  while ((await open()) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 500));
  let events = 0;
  let stillOpen = 0;
  const empty = { runs: 0, events: 0 };
  const byKind = new Map<string, number>();
  for await (const run of temporal.workflow.list({ query })) {
    if (run.status.name === 'RUNNING') stillOpen++;
    const history = await temporal.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    if (run.type === SETTLEMENT_WORKFLOW && emptySettlementRun(history)) {
      empty.runs++;
      empty.events += history.events?.length ?? 0;
      continue;
    }
    events += history.events?.length ?? 0;
    for (const e of history.events ?? []) {
      const key = `${run.type} ${(proto.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '')}`;
      byKind.set(key, (byKind.get(key) ?? 0) + 1);
    }
  }
  const breakdown = [...byKind]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${(n / payments).toFixed(2)} ${k}`)
    .join('; ');
  const of = options.label ? `${taskQueue} (${options.label})` : taskQueue;
  log(`history events of ${of} per payment (${stillOpen} runs still open when counted): ${breakdown}`);
  if (empty.runs > 0)
    log(`${of}: ${empty.runs} settlement runs that swept and paid nothing, ${empty.events} history events, not counted per payment`);
  return events / payments;
}
