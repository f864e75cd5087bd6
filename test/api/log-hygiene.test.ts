import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app';
import { createDb, type DbHandle } from '../../src/db/client';
import { createProviders } from '../../src/providers';
import { createTemporalClient } from '../../src/temporal/client';
import { sqlValuesOutOfFailures } from '../../src/worker/worker';
import { ApplicationFailure } from '@temporalio/common';
import { sql } from 'drizzle-orm';
import { adminHeaders, ADMIN_TOKEN, createApprovedMerchant, testConfig, useTestApp } from '../support/harness';

// A run with planted secrets, its whole log captured and searched. Query strings of
// credentialed routes and the values of a failed SQL statement must not be in it.

const ctx = useTestApp();

const lines: string[] = [];
let app: FastifyInstance;
let db: DbHandle;
let closeTemporal: () => Promise<void>;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const config = testConfig(ctx.config.databaseUrl, { LOG_LEVEL: 'trace' });
  db = createDb(config.databaseUrl, { max: 2 });
  const temporal = createTemporalClient(config.temporal);
  closeTemporal = temporal.close;
  app = await buildApp({ config, db, temporal: temporal.client, providers: createProviders(config) }, { logger: { stream } });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await db?.close();
  await closeTemporal?.();
});

describe('log hygiene', () => {
  it('logs no query string, no SQL parameter and no credential of a run with planted secrets', async () => {
    const merchant = await createApprovedMerchant(app);
    const key = { authorization: `Bearer ${merchant.apiKey}` };
    const plantedKey = 'svc_live_PLANTEDqueryKey0123456789abcdefg';
    const plantedEmail = 'planted.customer@secret-mail.example';
    const plantedMeta = 'PLANTED-METADATA-loyalty-4242';
    const plantedToken = 'PLANTED-admin-guess-0123456789abcdef';

    // A key sent in the query string, on a credentialed route and on a public one.
    await app.inject({ method: 'GET', url: `/api/v1/payment-sessions/SV_abcdefghijklmnopqrstuvwx?api_key=${plantedKey}`, headers: key });
    await app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/SV_abcdefghijklmnopqrstuvwx?api_key=${plantedKey}` });
    // The admin token, right and wrong, in the header and in the query.
    await app.inject({ method: 'GET', url: `/admin/v1/settings/payments?token=${ADMIN_TOKEN}`, headers: adminHeaders });
    await app.inject({ method: 'GET', url: '/admin/v1/settings/payments', headers: { authorization: `Bearer ${plantedToken}` } });
    // A webhook secret, shown once, then sent back in a query string.
    const endpoint = await app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${merchant.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: 'https://hooks.example/x' },
    });
    const webhookSecret = endpoint.json().secret as string;
    expect(webhookSecret).toMatch(/^whsec_/);
    await app.inject({
      method: 'GET',
      url: `/admin/v1/webhook-deliveries?paymentId=SV_abcdefghijklmnopqrstuvwx&secret=${webhookSecret}`,
      headers: adminHeaders,
    });

    // An insert that fails in Postgres with the customer's e-mail and metadata among its parameters.
    await ctx.db
      .sql`alter table checkout_sessions add constraint planted_failure check (customer_email is null or customer_email not like 'planted%')`;
    try {
      const failed = await app.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: key,
        payload: {
          amount: 25,
          currency: 'USD',
          countryCode: 'US',
          orderId: 'log-1',
          customerEmail: plantedEmail,
          metadata: { loyalty: plantedMeta },
        },
      });
      expect(failed.statusCode).toBe(500);
      expect(failed.body).not.toContain(plantedEmail);
    } finally {
      await ctx.db.sql`alter table checkout_sessions drop constraint planted_failure`;
    }

    const log = lines.join('');
    // The capture works: requests and the failure are there, with what an operator needs.
    expect(log).toContain('/api/v1/payment-sessions/SV_abcdefghijklmnopqrstuvwx?[query not logged]');
    const failure = lines
      .map((l) => JSON.parse(l) as { msg?: string; err?: Record<string, unknown> })
      .find((l) => l.msg === 'request failed');
    expect(failure?.err).toMatchObject({ type: expect.any(String), message: expect.stringContaining('Failed query') });
    expect(JSON.stringify(failure)).toContain('planted_failure');
    // And none of the planted values.
    for (const secret of [
      plantedKey,
      plantedEmail,
      plantedMeta,
      ADMIN_TOKEN,
      plantedToken,
      webhookSecret,
      merchant.apiKey,
      merchant.securityCode,
    ]) {
      expect(log, secret).not.toContain(secret);
    }
  });
});

describe('activity failures (worker log and workflow history)', () => {
  type Execute = NonNullable<typeof sqlValuesOutOfFailures.execute>;
  const input: Parameters<Execute>[0] = { args: [], headers: {} };
  const execute = async (thrown: unknown): Promise<unknown> => {
    const interceptor = sqlValuesOutOfFailures.execute;
    if (!interceptor) throw new Error('the interceptor has no execute');
    return interceptor(input, () => Promise.reject(thrown instanceof Error ? thrown : new Error(String(thrown))));
  };

  it("cut a failed statement's values before Temporal logs or stores them", async () => {
    const planted = 'planted.activity@secret-mail.example';
    let failure: unknown;
    try {
      await ctx.db.db.execute(sql`insert into merchants (id, name) values (${planted}, ${planted})`);
    } catch (err) {
      failure = err;
    }
    // The real error carries the value, in its message or its cause.
    expect(JSON.stringify(failure, Object.getOwnPropertyNames(failure)) + String((failure as Error).message)).toContain(planted);
    const thrown = (await execute(failure).catch((e: unknown) => e)) as Error;
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown.name).toBe((failure as Error).name);
    expect(thrown.message).toContain('Failed query');
    expect(thrown.message).toMatch(/postgres 23502/);
    expect(thrown.cause).toBeUndefined();
    expect(`${thrown.message}\n${thrown.stack}`).not.toContain(planted);
  });

  it('leave every other failure as it was', async () => {
    const permanent = ApplicationFailure.nonRetryable('the provider refused', 'ProviderRejected');
    expect(await execute(permanent).catch((e: unknown) => e)).toBe(permanent);
    const plain = new Error('connection refused');
    expect(await execute(plain).catch((e: unknown) => e)).toBe(plain);
  });
});
