import type { Client } from '@temporalio/client';
import type { Registry } from 'prom-client';
import { payoutTaskQueue } from '../../domain/task-queues';
import { gaugeFromRows } from './postgres-metrics';

/** The backlog of the workers' task queues (TEMPORAL_TASK_QUEUE and its payouts' queue), in `registry`. */
export function registerTaskQueueBacklog(registry: Registry, client: Client, taskQueue: string): void {
  const backlog = taskQueueBacklog(client, taskQueue);
  gaugeFromRows(
    registry,
    'svc_task_queue_backlog',
    'Tasks waiting in a Temporal task queue for a worker (the server’s approximate count), by queue and kind of task',
    ['task_queue', 'task_type'],
    () => backlog().then((rows) => rows.map((r) => ({ task_queue: r.taskQueue, task_type: r.taskType, count: r.count }))),
  );
  gaugeFromRows(
    registry,
    'svc_task_queue_backlog_age_seconds',
    'How long the oldest task waiting in a Temporal task queue has waited (0 with none), by queue and kind of task',
    ['task_queue', 'task_type'],
    () => backlog().then((rows) => rows.map((r) => ({ task_queue: r.taskQueue, task_type: r.taskType, count: r.ageSeconds }))),
  );
}

// The kinds of task a worker polls for, as the Temporal API numbers them (TaskQueueType). The
// workflows' queue carries both; the payouts' queue (domain/task-queues.ts) activities only.
const WORKFLOW_TASKS = 1;
const ACTIVITY_TASKS = 2;
/** TaskQueueKind NORMAL: the queue by its name, not a worker's sticky queue. */
const NORMAL_QUEUE = 1;
/** A scrape waits this long for the Temporal server, then reports no backlog rather than failing. */
const BACKLOG_TIMEOUT_MS = 3000;

interface TaskQueueBacklog {
  taskQueue: string;
  taskType: 'workflow' | 'activity';
  count: number;
  ageSeconds: number;
}

/**
 * The backlog of the queues the workers poll, read from the Temporal server's own statistics
 * (DescribeTaskQueue with reportStats) at scrape time. The SDK's worker metrics cannot say it: a
 * task is measured only once a worker takes it, so with every worker down or stuck they go quiet
 * while the queue grows. Read by the API, the queue stays visible when no worker runs. The count
 * is approximate (the server's own estimate), which is what an alert on growth needs. With the
 * server unreachable the series are left out of the scrape instead of failing it: a failed scrape
 * would page as the API being down, and /readyz already says that Temporal is. Both gauges of a
 * scrape share one round of requests.
 */
function taskQueueBacklog(client: Client, taskQueue: string): () => Promise<TaskQueueBacklog[]> {
  const queues = [
    { taskQueue, taskType: 'workflow', type: WORKFLOW_TASKS },
    { taskQueue, taskType: 'activity', type: ACTIVITY_TASKS },
    { taskQueue: payoutTaskQueue(taskQueue), taskType: 'activity', type: ACTIVITY_TASKS },
  ] as const;
  let last: { at: number; rows: Promise<TaskQueueBacklog[]> } | null = null;
  const read = () =>
    client.withDeadline(Date.now() + BACKLOG_TIMEOUT_MS, () =>
      Promise.all(
        queues.map(async (q) => {
          const { stats } = await client.workflowService.describeTaskQueue({
            namespace: client.options.namespace,
            taskQueue: { name: q.taskQueue, kind: NORMAL_QUEUE },
            taskQueueType: q.type,
            reportStats: true,
          });
          const age = stats?.approximateBacklogAge;
          return {
            taskQueue: q.taskQueue,
            taskType: q.taskType,
            count: Number(stats?.approximateBacklogCount ?? 0),
            ageSeconds: age ? Number(age.seconds ?? 0) + (age.nanos ?? 0) / 1e9 : 0,
          };
        }),
      ),
    );
  return () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), rows: read().catch(() => []) };
    return last.rows;
  };
}
