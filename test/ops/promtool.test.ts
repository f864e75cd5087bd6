import { describe, expect, it } from 'vitest';
import { routeLabel } from '../../src/api/plugins/metrics';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { promtool } from '../support/prometheus';
import { seedPayment } from '../support/seed-payment';

// /metrics as Prometheus's own linter reads it (`promtool check metrics`), with a
// series in every family the service computes from Postgres.
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const ctx = useTestApp({ METRICS_TOKEN });
const check = (text: string) => promtool(['check', 'metrics'], { input: text });

describe('/metrics under promtool check metrics', () => {
  it('has no problem, with every family of ours holding series', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await seedPayment(ctx.db.db, m.id, 'completed');
    await seedPayment(ctx.db.db, m.id, 'pending');
    const sql = ctx.db.sql;
    await sql`insert into events (id, payment_id, merchant_id, seq, type, body) values (${`evt_${id}`}, ${id}, ${m.id}, 1, 'payment.completed', '{}')`;
    await sql`insert into webhook_deliveries (id, event_id, payment_id, url, secret_source, secret_ref) values (${`dlv_${id}`}, ${`evt_${id}`}, ${id}, 'https://shop.example/hooks', 'merchant', ${m.id})`;
    await sql`insert into webhook_attempts (delivery_id, status_code, duration_ms) values (${`dlv_${id}`}, 200, 250)`;
    // A merchant payout confirmed on chain 40 s after it was planned (payout latency).
    const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
    await sql`insert into payouts (id, payment_id, kind, network, asset, from_address, to_address, amount, status, created_at, confirmed_at)
      values (${`po_${id.slice(3, 27)}`}, ${id}, 'merchant', 'polygon', 'USDC', ${EVM}, ${EVM}, 24625000, 'confirmed', now() - interval '40 seconds', now())`;
    await ctx.app.inject({ method: 'GET', url: '/pay/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' });

    const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    const text = res.body;
    for (const family of [
      'svc_payments',
      'svc_payment_outcomes',
      'svc_payment_completion_seconds_bucket',
      'svc_webhook_attempt_duration_seconds_bucket',
      'svc_payout_confirmation_seconds_bucket',
      'svc_payments_enabled',
      'svc_webhook_oldest_pending_delivery_age_seconds',
    ]) {
      expect(text, family).toMatch(new RegExp(`^${family}(\\{[^}]*\\})? `, 'm'));
    }
    expect(text).toMatch(/svc_payments_enabled 1\n/);
    // The payout above, the only one of this file's database, in its kind's histogram: 40 s, so
    // above the 30 s bucket and within the 60 s one.
    const merchantBuckets = Object.fromEntries(
      [...text.matchAll(/^svc_payout_confirmation_seconds_bucket\{(?=[^}]*kind="merchant")[^}]*le="([^"]+)"[^}]*\} (\d+)$/gm)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    expect(merchantBuckets).toMatchObject({ '30': 0, '60': 1, '+Inf': 1 });
    expect(text).toMatch(/^svc_payout_confirmation_seconds_count\{kind="merchant"\} 1$/m);
    // The simple page's route is labelled by its pattern, without its parameter's regular expression.
    expect(text).toMatch(/route="\/pay\/:code"/);
    expect(text).not.toMatch(/route="[^"]*\(/);
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);

    const checked = await check(text);
    expect(checked.output.trim()).toBe('');
    expect(checked.code).toBe(0);
  });

  it('refuses what the issue found, so the check above can fail', async () => {
    const bad = '# HELP nodejs_active_handles_total x\n# TYPE nodejs_active_handles_total gauge\nnodejs_active_handles_total 3\n';
    const checked = await check(bad);
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('non-counter metrics should not have "_total" suffix');
  });

  it('labels a route by its pattern without parameter regular expressions', () => {
    expect(routeLabel('/pay/:code([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})')).toBe('/pay/:code');
    expect(routeLabel('/api/v1/payment-sessions/:id')).toBe('/api/v1/payment-sessions/:id');
  });
});
