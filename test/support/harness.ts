import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp } from '../../src/api/app';
import { loadConfig, type Config } from '../../src/config';
import { createDb, type DbHandle } from '../../src/db/client';
import { createTemporalClient } from '../../src/temporal/client';
import { createTestDatabase } from './databases';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // A task queue per file keeps workers of parallel files from taking each other's tasks.
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    ADMIN_TOKEN,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
}

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  db: DbHandle;
  temporal: Client;
}

/**
 * A fresh database and a built app for one test file, against the run's real Temporal dev
 * server; closed and dropped after the file.
 */
export function useTestApp(
  overrides: Record<string, string> = {},
  options: { extend?: (app: FastifyInstance) => void } = {},
): TestContext {
  const ctx = {} as TestContext;
  let drop: () => Promise<void> = async () => {};
  let closeTemporal: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    drop = database.drop;
    ctx.config = testConfig(database.url, overrides);
    ctx.db = createDb(ctx.config.databaseUrl, { max: 5 });
    const temporal = createTemporalClient(ctx.config.temporal);
    ctx.temporal = temporal.client;
    closeTemporal = temporal.close;
    ctx.app = await buildApp({ config: ctx.config, db: ctx.db, temporal: ctx.temporal }, { logger: false });
    options.extend?.(ctx.app);
    await ctx.app.ready();
  });
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.db?.close();
    await closeTemporal();
    await drop();
  });
  return ctx;
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

export async function createMerchant(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
): Promise<{ id: string; securityCode: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/merchants',
    headers: adminHeaders,
    payload: {
      name: 'Test Shop',
      wallets: [{ asset: 'USDC', network: 'polygon', address: '0x52908400098527886E0F7030069857D2E4169EE7' }],
      ...body,
    },
  });
  if (res.statusCode !== 201) throw new Error(`create merchant: ${res.statusCode} ${res.body}`);
  const json = res.json();
  return { id: json.merchant.id, securityCode: json.securityCode };
}

/** An approved merchant and its live key (all four scopes). */
export async function createApprovedMerchant(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
): Promise<{ id: string; securityCode: string; apiKey: string }> {
  const merchant = await createMerchant(app, body);
  const res = await app.inject({ method: 'POST', url: `/admin/v1/merchants/${merchant.id}/approve`, headers: adminHeaders });
  if (res.statusCode !== 200) throw new Error(`approve merchant: ${res.statusCode} ${res.body}`);
  return { ...merchant, apiKey: res.json().apiKey };
}
