import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import errors from '../../src/api/plugins/errors';
import metrics from '../../src/api/plugins/metrics';
import { freePort } from '../support/free-port';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { seedPayment } from '../support/seed-payment';

// /metrics in Prometheus format, behind METRICS_TOKEN.
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const ctx = useTestApp({ METRICS_TOKEN });

const scrape = (token?: string) =>
  ctx.app.inject({ method: 'GET', url: '/metrics', headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('/metrics', () => {
  it('refuses a scrape without the metrics token, or with the admin token', async () => {
    for (const token of [undefined, 'wrong-token-0123456789abcdefghij', ctx.config.adminToken]) {
      const res = await scrape(token);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ ok: false, error: 'Unauthorized' });
    }
  });

  it('reports request latency per route pattern, payments by status and webhook outcomes', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const completed = await seedPayment(ctx.db.db, m.id, 'completed');
    await seedPayment(ctx.db.db, m.id, 'pending');
    await seedPayment(ctx.db.db, m.id, 'pending');
    const lookup = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/payment-sessions/${completed}`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(lookup.statusCode).toBe(200);
    await ctx.app.inject({ method: 'GET', url: '/no/such/page' });

    const res = await scrape(METRICS_TOKEN);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/payment-sessions\/:id",status_code="200"\} 1\n/,
    );
    // Ids and unmatched paths never become labels.
    expect(text).not.toContain(completed);
    expect(text).not.toContain('/no/such/page');
    expect(text).toMatch(/route="unmatched",status_code="404"/);
    expect(text).toContain('svc_payments{status="pending"} 2');
    expect(text).toContain('svc_payments{status="completed"} 1');
    expect(text).toContain('# TYPE svc_webhook_deliveries gauge');
    expect(text).toContain('# TYPE svc_webhook_attempts gauge');
    expect(text).toContain('process_cpu_seconds_total');
  });
});

describe('/metrics about the payment engine', () => {
  it('reports transitions, simple orders, exceptions by kind and status, and webhook attempt latency', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedPayment(ctx.db.db, m.id, 'completed');
    const sql = ctx.db.sql;
    for (const [seq, type] of ['payment.processing', 'payment.completed'].entries()) {
      await sql`insert into events (id, payment_id, merchant_id, seq, type, body) values (${`evt_${type}_${id}`}, ${id}, ${m.id}, ${seq + 1}, ${type}, '{}')`;
    }
    await sql`insert into webhook_deliveries (id, event_id, payment_id, url, secret_source, secret_ref) values (${`dlv_${id}`}, ${`evt_payment.completed_${id}`}, ${id}, 'https://shop.example/hooks', 'merchant', ${m.id})`;
    for (const [statusCode, durationMs] of [
      [500, 100],
      [200, 300],
      [200, 300],
    ] as const) {
      await sql`insert into webhook_attempts (delivery_id, status_code, duration_ms) values (${`dlv_${id}`}, ${statusCode}, ${durationMs})`;
    }
    await sql`insert into payment_exceptions (id, payment_kind, payment_id, kind, amount_micro) values (${`exc_${id}`}, 'checkout_session', ${id}, 'overpaid', 1000000)`;

    const text = (await scrape(METRICS_TOKEN)).body;
    expect(text).toMatch(/svc_payment_transitions\{event="payment.processing"\} \d+/);
    expect(text).toMatch(/svc_payment_transitions\{event="payment.completed"\} \d+/);
    expect(text).toMatch(/svc_payment_exceptions\{kind="overpaid",status="open"\} 1\n/);
    expect(text).toContain('# TYPE svc_simple_orders gauge');
    // A histogram counted in Postgres: 100 ms failed; 300 ms and 300 ms succeeded.
    expect(text).toContain('# TYPE svc_webhook_attempt_duration_seconds histogram');
    expect(text).toMatch(/svc_webhook_attempt_duration_seconds_bucket\{outcome="succeeded",le="0.25"\} 0\n/);
    expect(text).toMatch(/svc_webhook_attempt_duration_seconds_bucket\{outcome="succeeded",le="0.5"\} 2\n/);
    expect(text).toMatch(/svc_webhook_attempt_duration_seconds_bucket\{outcome="failed",le="0.1"\} 1\n/);
    expect(text).toMatch(/svc_webhook_attempt_duration_seconds_count\{outcome="succeeded"\} 2\n/);
    expect(text).toMatch(/svc_webhook_attempt_duration_seconds_sum\{outcome="succeeded"\} 0.6\n/);
    expect(text).not.toContain('quantile=');
  });
});

describe('/metrics about the workers’ task queues', () => {
  const backlogOf = (text: string, taskQueue: string, taskType: string, family = 'svc_task_queue_backlog') =>
    Number(new RegExp(`^${family}\\{task_queue="${taskQueue}",task_type="${taskType}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

  it('reports the tasks waiting on each queue the workers poll, from the Temporal server, and how long the oldest has waited', async () => {
    // No worker polls this file's task queue: workflows started on it wait there.
    const taskQueue = ctx.config.temporal.taskQueue;
    const runs = await Promise.all(
      [1, 2].map(() => ctx.temporal.workflow.start('noSuchWorkflow', { taskQueue, workflowId: `backlog-${randomUUID()}` })),
    );
    try {
      const text = await eventually(
        async () => (await scrape(METRICS_TOKEN)).body,
        (body) => backlogOf(body, taskQueue, 'workflow') === 2,
        20_000,
        'two workflow tasks waiting',
      );
      expect(backlogOf(text, taskQueue, 'workflow', 'svc_task_queue_backlog_age_seconds')).toBeGreaterThan(0);
      expect(backlogOf(text, taskQueue, 'activity')).toBe(0);
      expect(backlogOf(text, `${taskQueue}-payouts`, 'activity')).toBe(0);
      expect(backlogOf(text, `${taskQueue}-payouts`, 'activity', 'svc_task_queue_backlog_age_seconds')).toBe(0);
    } finally {
      await Promise.all(runs.map((run) => run.terminate()));
    }
  });

  it('leaves the backlog out, and still answers, while the Temporal server cannot be reached', async () => {
    // Without the client's retry interceptor, whose timers would outlive the connection closed below.
    const unreachable = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] }) });
    const app = Fastify();
    await app.register(errors);
    await app.register(metrics, { db: ctx.db.db, token: null, production: false, temporal: { client: unreachable, taskQueue: 'nobody' } });
    try {
      const res = await app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('# TYPE svc_task_queue_backlog gauge');
      expect(res.body).not.toMatch(/^svc_task_queue_backlog\{/m);
      expect(res.body).toMatch(/^svc_payments_enabled 1$/m);
    } finally {
      await app.close();
      await unreachable.connection.close();
    }
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  const appWith = async (production: boolean) => {
    const app = Fastify();
    await app.register(errors);
    await app.register(metrics, { db: ctx.db.db, token: null, production });
    return app;
  };

  it('is not served in production', async () => {
    const app = await appWith(true);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    await app.close();
  });

  it('is open elsewhere (a laptop, a test run)', async () => {
    const app = await appWith(false);
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('svc_payments');
    await app.close();
  });
});
