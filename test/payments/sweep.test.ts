import { describe, expect, it } from 'vitest';
import { startSweeper, type SweepTask } from '../../src/payments/sweep';
import { REQUEST_LOG_RETENTION_DAYS } from '../../src/accounts/request-log';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';

const ctx = useTestApp();

describe('a create whose process died before it answered', () => {
  it('lets the same Idempotency-Key through again once a claim has been abandoned for 30 seconds', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = { amount: 12, currency: 'USD', countryCode: 'US' };
    const send = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': 'crashed-once' },
        payload: body,
      });
    // A claim left by a request whose process died: in progress, same request hash.
    const first = await send();
    expect(first.statusCode).toBe(201);
    await ctx.db
      .sql`update idempotency_keys set state = 'in_progress', response_status = null, response_body = null, created_at = now() - interval '20 seconds' where key = 'crashed-once'`;
    expect((await send()).statusCode).toBe(409);
    await ctx.db.sql`update idempotency_keys set created_at = now() - interval '31 seconds' where key = 'crashed-once'`;
    expect((await send()).statusCode).toBe(201);
  });
});

describe('the purge of expired Idempotency-Keys', () => {
  const keys = async (merchantId: string) =>
    (await ctx.db.sql`select key from idempotency_keys where merchant_id = ${merchantId} order by key`).map((r) => r.key as string);

  it('runs in the API’s sweep: a key past its 24 h is deleted, a fresh one and one still running are kept', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const create = (key: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': key },
        payload: { amount: 12, currency: 'USD', countryCode: 'US' },
      });
    for (const key of ['expired', 'fresh']) expect((await create(key)).statusCode).toBe(201);
    // Postgres's clock decides expiry: move the one key's 24 h into the past rather than wait.
    await ctx.db
      .sql`update idempotency_keys set created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour' where merchant_id = ${m.id} and key = 'expired'`;
    await ctx.db.sql`insert into idempotency_keys (merchant_id, key, route, request_hash, state, expires_at)
      values (${m.id}, 'running', 'POST /api/v1/checkout/sessions', 'hash', 'in_progress', now() + interval '24 hours')`;
    expect(await keys(m.id)).toEqual(['expired', 'fresh', 'running']);

    const failures: { err: unknown; task: SweepTask }[] = [];
    const stop = startSweeper(ctx.app.payments.context, 50, (err, task) => failures.push({ err, task }));
    try {
      await eventually(
        () => keys(m.id),
        (left) => !left.includes('expired'),
        10_000,
        'the expired key purged',
      );
    } finally {
      stop();
    }
    expect(await keys(m.id)).toEqual(['fresh', 'running']);
    expect(failures).toEqual([]);
    // The fresh key still replays its first answer.
    const replay = await create('fresh');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('purges the merchants’ request log past its retention, in the same sweep', async () => {
    const m = await createApprovedMerchant(ctx.app);
    for (const [requestId, days] of [
      ['req_sweepOld', REQUEST_LOG_RETENTION_DAYS + 1],
      ['req_sweepKept', REQUEST_LOG_RETENTION_DAYS - 1],
    ] as const) {
      await ctx.db.sql`insert into api_request_log (merchant_id, key_id, method, path, status_code, request_id, created_at)
        values (${m.id}, 'key_x', 'GET', '/api/v1/transactions/SV_x', 404, ${requestId}, now() - make_interval(days => ${days}))`;
    }
    const logged = async () =>
      (await ctx.db.sql`select request_id from api_request_log where merchant_id = ${m.id} order by request_id`).map((r) => r.request_id);
    const failures: { err: unknown; task: SweepTask }[] = [];
    const stop = startSweeper(ctx.app.payments.context, 50, (err, task) => failures.push({ err, task }));
    try {
      await eventually(logged, (left) => !left.includes('req_sweepOld'), 10_000, 'the old request log purged');
    } finally {
      stop();
    }
    expect(await logged()).toEqual(['req_sweepKept']);
    expect(failures).toEqual([]);
  });
});
