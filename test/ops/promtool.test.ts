import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { routeLabel } from '../../src/api/plugins/metrics';
import { ensurePromtool } from '../../tools/dev/promtool';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { seedPayment } from '../support/seed-payment';

// Issue 31 item 5: /metrics as Prometheus's own linter reads it (`promtool check metrics`), with a
// series in every family the service computes from Postgres.
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const ctx = useTestApp({ METRICS_TOKEN });
const run = promisify(execFile);

async function promtool(args: string[], input: string): Promise<{ code: number; output: string }> {
  const child = run(ensurePromtool(), args, { maxBuffer: 16 * 1024 * 1024 });
  child.child.stdin!.end(input);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

describe('/metrics under promtool check metrics', () => {
  it('has no problem, with every family of ours holding series', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedPayment(ctx.db.db, m.id, 'completed');
    await seedPayment(ctx.db.db, m.id, 'pending');
    const sql = ctx.db.sql;
    await sql`insert into events (id, payment_id, merchant_id, seq, type, body) values (${`evt_${id}`}, ${id}, ${m.id}, 1, 'payment.completed', '{}')`;
    await sql`insert into webhook_deliveries (id, event_id, payment_id, url, secret_source, secret_ref) values (${`dlv_${id}`}, ${`evt_${id}`}, ${id}, 'https://shop.example/hooks', 'merchant', ${m.id})`;
    await sql`insert into webhook_attempts (delivery_id, status_code, duration_ms) values (${`dlv_${id}`}, 200, 250)`;
    await ctx.app.inject({ method: 'GET', url: '/pay/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' });

    const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    const text = res.body;
    for (const family of [
      'svc_payments',
      'svc_payment_outcomes',
      'svc_payment_completion_seconds_bucket',
      'svc_webhook_attempt_duration_seconds_bucket',
      'svc_payments_enabled',
      'svc_webhook_oldest_pending_delivery_age_seconds',
    ]) {
      expect(text, family).toMatch(new RegExp(`^${family}(\\{[^}]*\\})? `, 'm'));
    }
    expect(text).toMatch(/svc_payments_enabled 1\n/);
    // The simple page's route is labelled by its pattern, without its parameter's regular expression.
    expect(text).toMatch(/route="\/pay\/:code"/);
    expect(text).not.toMatch(/route="[^"]*\(/);
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);

    const checked = await promtool(['check', 'metrics'], text);
    expect(checked.output.trim()).toBe('');
    expect(checked.code).toBe(0);
  });

  it('refuses what the issue found, so the check above can fail', async () => {
    const bad = '# HELP nodejs_active_handles_total x\n# TYPE nodejs_active_handles_total gauge\nnodejs_active_handles_total 3\n';
    const checked = await promtool(['check', 'metrics'], bad);
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('non-counter metrics should not have "_total" suffix');
  });

  it('labels a route by its pattern without parameter regular expressions', () => {
    expect(routeLabel('/pay/:code([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})')).toBe('/pay/:code');
    expect(routeLabel('/api/v1/payment-sessions/:id')).toBe('/api/v1/payment-sessions/:id');
  });
});
