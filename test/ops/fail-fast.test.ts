import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { API_QUERY_DEADLINE_MS, API_STATEMENT_TIMEOUT_MS, createDb } from '../../src/db/client';
import { isUnavailable } from '../../src/domain/errors';
import { createProviders } from '../../src/providers';
import { createTemporalClient } from '../../src/temporal/client';
import { adminHeaders, testConfig, useTestApp } from '../support/harness';
import { startFreezableProxy, startSilentServer } from '../support/tcp-proxy';

// A Postgres that accepts connections and never answers (a hung host, a silent
// partition) must cost a request seconds, not the 46–60 s it took before.

const ctx = useTestApp();
let silent: Awaited<ReturnType<typeof startSilentServer>>;

beforeAll(async () => {
  silent = await startSilentServer();
});

afterAll(() => silent.close());

async function appOn(databaseUrl: string) {
  const config = testConfig(databaseUrl);
  const db = createDb(config.databaseUrl, { max: 2, queryDeadlineMs: API_QUERY_DEADLINE_MS });
  const temporal = createTemporalClient(config.temporal);
  const app = await buildApp({ config, db, temporal: temporal.client, providers: createProviders(config) }, { logger: false });
  const timed = async (url: string) => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url, headers: adminHeaders });
    return { res, seconds: (performance.now() - started) / 1000 };
  };
  return { app, timed, close: () => app.close().then(() => Promise.all([db.close(), temporal.close()])) };
}

describe('a Postgres that does not serve', () => {
  it('that accepts connections and never answers: 503 Unavailable in under 6 s', async () => {
    const { timed, close } = await appOn(`postgres://postgres@127.0.0.1:${silent.port}/none`);
    try {
      const { res, seconds } = await timed('/admin/v1/settings/payments');
      console.log(`silent Postgres: ${res.statusCode} after ${seconds.toFixed(2)} s`);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, error: 'Unavailable' });
      expect(seconds).toBeLessThan(6);
      expect(silent.sockets.size, 'the app did reach the silent server').toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it('that stops answering after the pool connected: 503 in under 6 s, and answers again once it is back', async () => {
    const url = new URL(ctx.config.databaseUrl);
    const proxy = await startFreezableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    const { timed, close } = await appOn(url.toString());
    try {
      expect((await timed('/admin/v1/settings/payments')).res.statusCode).toBe(200);
      proxy.freeze();
      const { res, seconds } = await timed('/admin/v1/settings/payments');
      console.log(`Postgres hung mid-connection: ${res.statusCode} after ${seconds.toFixed(2)} s`);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, error: 'Unavailable' });
      expect(seconds).toBeLessThan(6);
      proxy.thaw();
      expect((await timed('/admin/v1/settings/payments')).res.statusCode).toBe(200);
    } finally {
      await close();
      await proxy.close();
    }
  });

  it('a slow statement on a live Postgres is cancelled by the server, and counts as Unavailable', async () => {
    const api = createDb(ctx.config.databaseUrl, { max: 1, statementTimeoutMs: API_STATEMENT_TIMEOUT_MS });
    const short = createDb(ctx.config.databaseUrl, { max: 1, statementTimeoutMs: 300 });
    try {
      const [row] = await api.sql`show statement_timeout`;
      expect(row?.statement_timeout).toBe('5s');
      const err = await short.sql`select pg_sleep(3)`.then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as { code?: string }).code).toBe('57014');
      expect(isUnavailable(err)).toBe(true);
    } finally {
      await Promise.all([api.close(), short.close()]);
    }
  });

  it('at its connection limit (53300, too many connections): 503 Unavailable, and answers again once a connection is free', async () => {
    // A role allowed one connection, held by another client: the app's connection is refused as it
    // is by a server at max_connections.
    const role = `svc_limit_${process.pid}_${Date.now()}`;
    await ctx.db.sql.unsafe(`create role ${role} login connection limit 1`);
    await ctx.db.sql.unsafe(`grant select on all tables in schema public to ${role}`);
    const url = new URL(ctx.config.databaseUrl);
    url.username = role;
    // The holder connects first: a pool opens a connection as soon as it is made.
    const holder = createDb(url.toString(), { max: 1 });
    await holder.sql`select 1`;
    const { timed, close } = await appOn(url.toString());
    try {
      const { res } = await timed('/admin/v1/settings/payments');
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, error: 'Unavailable' });
      await holder.close();
      expect((await timed('/admin/v1/settings/payments')).res.statusCode).toBe(200);
    } finally {
      await close();
      await holder.close();
      await ctx.db.sql.unsafe(`drop owned by ${role}`);
      await ctx.db.sql.unsafe(`drop role ${role}`);
    }
  });
});
