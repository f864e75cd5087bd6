import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { createDb } from '../../src/db/client';
import { createProviders } from '../../src/providers';
import { createTemporalClient } from '../../src/temporal/client';
import { ADMIN_TOKEN, adminHeaders, testConfig, useTestApp } from '../support/harness';

const ctx = useTestApp();

async function appWith(overrides: Record<string, string>, logger: false | object = false) {
  const config = testConfig(ctx.config.databaseUrl, overrides);
  const db = createDb(config.databaseUrl, { max: 1 });
  const temporal = createTemporalClient(config.temporal);
  const app = await buildApp({ config, db, temporal: temporal.client, providers: createProviders(config) }, { logger });
  return {
    app,
    close: async () => {
      await app.close();
      await db.close();
      // The client's gRPC retry interceptor may still hold a backoff timer for the unreachable
      // Temporal after /readyz answered at its deadline; closing the channel under it would throw
      // from that timer. Within the check's 2 s deadline the last such timer fires at most ~1.7 s later.
      if (overrides.TEMPORAL_ADDRESS) await new Promise((resolve) => setTimeout(resolve, 2500));
      await temporal.close();
    },
  };
}

describe('/readyz', () => {
  it('answers 503 naming Temporal when Temporal is unreachable, while /healthz stays up', async () => {
    const { app, close } = await appWith({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ ok: false, checks: { postgres: 'ok', temporal: 'unavailable' } });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await close();
    }
  });

  it('answers 503 naming Postgres when Postgres is unreachable, and requests that need it answer 503 Unavailable', async () => {
    const { app, close } = await appWith({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json().checks.postgres).toBe('unavailable');
      const admin = await app.inject({ method: 'GET', url: '/admin/v1/settings/payments', headers: adminHeaders });
      expect(admin.statusCode).toBe(503);
      expect(admin.json()).toMatchObject({ ok: false, error: 'Unavailable' });
    } finally {
      await close();
    }
  });
});

/** An app logging into `lines`, every line unless a level is given. */
async function loggingApp(level = 'trace') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, ...(await appWith({ LOG_LEVEL: level }, { stream })) };
}

describe('logs', () => {
  it('never contain the authorization header, keys or security codes', async () => {
    const { app, lines, close } = await loggingApp();
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: adminHeaders,
        payload: { name: 'Log Shop' },
      });
      const { merchant, securityCode } = created.json();
      const approved = await app.inject({ method: 'POST', url: `/admin/v1/merchants/${merchant.id}/approve`, headers: adminHeaders });
      const apiKey = approved.json().apiKey as string;
      await app.inject({ method: 'GET', url: '/api/v1/payments', headers: { authorization: `Bearer ${apiKey}` } });
      app.log.info({ req: { headers: { authorization: `Bearer ${apiKey}` } }, body: { api_key: apiKey, securityCode } }, 'probe');

      const all = lines.join('');
      expect(lines.length).toBeGreaterThan(4);
      expect(all).toContain('[redacted]');
      for (const secret of [apiKey, securityCode, ADMIN_TOKEN]) expect(all).not.toContain(secret);
    } finally {
      await close();
    }
  });

  it("carry the request's id on every line a request writes, and on no other", async () => {
    const { app, lines, close } = await loggingApp();
    try {
      const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req_logprobe_0001' } });
      const made = await app.inject({ method: 'GET', url: '/no-such-page' });
      app.log.info({ probe: { apiKey: 'svc_live_probe' } }, 'outside any request');

      const parsed = lines.map((line) => JSON.parse(line) as LogLine);
      const ofGiven = parsed.filter((line) => line.reqId === 'req_logprobe_0001');
      const ofMade = parsed.filter((line) => line.reqId === made.headers['x-request-id']);
      expect(given.headers['x-request-id']).toBe('req_logprobe_0001');
      // The lines about each request: received (debug), then answered (the 404 through its own handler).
      expect(ofGiven.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
      expect(ofMade.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
      const outside = parsed.find((line) => line.msg === 'outside any request');
      expect(outside).toBeDefined();
      expect(outside).not.toHaveProperty('reqId');
      expect(outside!.probe!.apiKey).toBe('[redacted]');
    } finally {
      await close();
    }
  });

  it('say each request once at info, when it is answered: what was asked and what was answered', async () => {
    const { app, lines, close } = await loggingApp('info');
    try {
      await app.inject({ method: 'GET', url: '/healthz?api_key=svc_live_probe', headers: { 'x-request-id': 'req_logprobe_0002' } });
      await app.inject({ method: 'GET', url: '/no-such-page', headers: { 'x-request-id': 'req_logprobe_0003' } });

      const parsed = lines.map((line) => JSON.parse(line) as LogLine);
      const healthz = parsed.filter((line) => line.reqId === 'req_logprobe_0002');
      expect(healthz).toHaveLength(1);
      expect(healthz[0]).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { method: 'GET', url: '/healthz?[query not logged]' },
        res: { statusCode: 200 },
      });
      expect(healthz[0]!.responseTime).toBeGreaterThan(0);
      const missing = parsed.filter((line) => line.reqId === 'req_logprobe_0003');
      expect(missing.map((line) => [line.msg, line.res?.statusCode])).toEqual([['request completed', 404]]);
      expect(lines.join('')).not.toContain('svc_live_probe');
    } finally {
      await close();
    }
  });
});

interface LogLine {
  level: number;
  reqId?: string;
  msg?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  probe?: { apiKey: string };
}
