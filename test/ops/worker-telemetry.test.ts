import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { PinoTemporalLogger } from '../../src/worker/runtime';
import { startWorkerMetrics } from '../../src/worker/metrics-server';
import { deliveryInLogs } from '../../src/worker/worker';
import { freePort } from '../support/free-port';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { promtool } from '../support/prometheus';
import { envFor, killHard, startEntryPoint } from '../support/processes';

// The worker process serves the Temporal SDK's Prometheus metrics on its own
// port, behind the API's METRICS_TOKEN, and writes the SDK's lines through pino, one JSON object a line.
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const ctx = useTestApp();
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: new PinoTemporalLogger(pino({ level: 'debug' }, stream)) };
}

describe('the Temporal SDK logger in pino', () => {
  it('writes a failed attempt as one line with the payment id and the error, without a stack', () => {
    const { lines, logger } = capture();
    const error = new Error('the receiver answered 500');
    logger.warn('Activity failed', { workflowId: 'SV_abc123', activityType: 'deliverWebhook', attempt: 3, error });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'Activity failed',
      workflowId: 'SV_abc123',
      paymentId: 'SV_abc123',
      activityType: 'deliverWebhook',
      attempt: 3,
      error: { type: 'Error', message: 'the receiver answered 500' },
    });
    expect(JSON.stringify(lines[0])).not.toContain('at ');
  });

  it('maps every SDK level and names the subject of a line by its workflow id', () => {
    const { lines, logger } = capture();
    logger.log('TRACE', 'dropped below debug');
    logger.debug('d', { workflowId: 'dlv_abc' });
    logger.info('i', { workflowId: `plink_${'b'.repeat(24)}` });
    logger.warn('w', { workflowId: '6f1c2a58-0d8e-4f0e-9f55-3c2f3b7a1e01' });
    logger.error('e', { sdkComponent: 'worker' });
    expect(lines.map((l) => l.level)).toEqual([20, 30, 40, 50]);
    expect(lines[0]).toMatchObject({ deliveryId: 'dlv_abc' });
    expect(lines[1]).toMatchObject({ paymentLinkId: `plink_${'b'.repeat(24)}` });
    expect(lines[2]).toMatchObject({ paymentId: '6f1c2a58-0d8e-4f0e-9f55-3c2f3b7a1e01' });
    expect(lines.filter((l) => 'paymentId' in l)).toHaveLength(1);
  });

  it('names the delivery of an attempt by the activity’s argument, local or durable, and nothing else', async () => {
    const attributesOf = async (activityType: string, isLocal: boolean, args: unknown[]) => {
      const { inbound, outbound } = deliveryInLogs({ info: { activityType, isLocal } } as unknown as Parameters<typeof deliveryInLogs>[0]);
      await inbound!.execute!({ args, headers: {} }, async () => undefined);
      return outbound!.getLogAttributes!({ activityId: '7' }, (a) => a);
    };
    expect(await attributesOf('deliverWebhook', true, ['dlv_abc'])).toEqual({ activityId: '7', deliveryId: 'dlv_abc' });
    expect(await attributesOf('deliverWebhook', false, ['dlv_def'])).toEqual({ activityId: '7', deliveryId: 'dlv_def' });
    expect(await attributesOf('sendPayouts', false, ['dlv_looks_like_one'])).toEqual({ activityId: '7' });
  });
});

describe('worker.ts', () => {
  it('serves the SDK metrics on WORKER_METRICS_PORT behind METRICS_TOKEN, logs its start as JSON, and stops answering when killed', async () => {
    const port = await freePort();
    const { child, output } = await startEntryPoint(
      'worker.ts',
      { ...envFor(ctx.config), WORKER_METRICS_PORT: String(port), METRICS_TOKEN, LOG_LEVEL: 'warn' },
      /worker: polling/,
    );
    stops.push(() => killHard(child));
    const line =
      output()
        .split('\n')
        .find((l) => l.includes('worker: polling')) ?? '';
    expect(JSON.parse(line)).toMatchObject({
      name: 'worker',
      level: 30,
      taskQueue: ctx.config.temporal.taskQueue,
      metrics: `http://127.0.0.1:${port}/metrics`,
    });
    const url = `http://127.0.0.1:${port}/metrics`;
    // The API's token and the API's answers: none or a wrong one is 401 in the error envelope.
    for (const token of [undefined, 'wrong-token-0123456789abcdefghij', ctx.config.adminToken]) {
      const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      expect(res.status, String(token)).toBe(401);
      expect(await res.json()).toMatchObject({ ok: false, error: 'Unauthorized', requestId: expect.stringMatching(/^req_/) });
    }
    // The exporter reports a metric once the worker has recorded it: its first polls, and the first
    // workflow task it starts (the settlement schedule's runs, every 2 s here).
    const body = await eventually(
      () => fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text()),
      (text) => /^temporal_workflow_task_schedule_to_start_latency_bucket\{/m.test(text),
      30_000,
      'the SDK’s first workflow task',
    );
    expect(body).toContain(`task_queue="${ctx.config.temporal.taskQueue}"`);
    // The process's own, as the API reports its: what the dashboard's worker CPU and memory read.
    expect(body).toMatch(/^process_cpu_seconds_total \d/m);
    expect(body).toMatch(/^process_resident_memory_bytes \d/m);
    // Durations in seconds, with buckets around the slow-start alert's thresholds.
    expect(body).toMatch(/^temporal_workflow_task_schedule_to_start_latency_bucket\{[^}]*le="30"\} \d/m);
    // The worker's exposition passes Prometheus's own linter, as the API's does.
    const checked = await promtool(['check', 'metrics'], { input: body });
    expect(checked.output.trim()).toBe('');
    expect(checked.code).toBe(0);
    // A killed worker answers nothing: Prometheus records up 0, and SvcWorkerDown fires.
    await killHard(child);
    await expect(fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).rejects.toThrow();
  }, 120_000);

  it('serves no worker metrics in production without METRICS_TOKEN, as the API does not', async () => {
    const metrics = await startWorkerMetrics({
      host: '127.0.0.1',
      port: await freePort(),
      token: null,
      production: true,
      db: ctx.db.db,
      exporterUrl: null,
      logger: pino({ level: 'silent' }),
    });
    try {
      const res = await fetch(metrics.url);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ ok: false, error: 'NotFound' });
    } finally {
      await metrics.close();
    }
  });

  it('serves no metrics without WORKER_METRICS_PORT', async () => {
    const port = await freePort();
    const { child } = await startEntryPoint('worker.ts', { ...envFor(ctx.config), LOG_LEVEL: 'warn' }, /worker: polling/);
    stops.push(() => killHard(child));
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
