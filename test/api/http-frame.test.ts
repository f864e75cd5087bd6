import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

const ctx = useTestApp(
  {},
  {
    extend: (app) => {
      app.get('/api/v1/_boom', async () => {
        throw new Error('relation "secret_table" does not exist at /srv/app/src/db.ts:12');
      });
    },
  },
);

function expectEnvelope(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, error: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body).toEqual(expect.objectContaining({ ok: false, error, message: expect.any(String), requestId: expect.any(String) }));
  expect(res.headers['x-request-id']).toBe(body.requestId);
  return body;
}

describe('the HTTP frame', () => {
  it('puts x-request-id on every response, echoing a safe incoming one', async () => {
    const plain = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(plain.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
    const echoed = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-trace-1234' } });
    expect(echoed.headers['x-request-id']).toBe('client-trace-1234');
    const unsafe = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\nforged log line' } });
    expect(unsafe.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers unknown routes with 404 NotFound in the envelope', async () => {
    expectEnvelope(await ctx.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }), 404, 'NotFound');
    expectEnvelope(await ctx.app.inject({ method: 'DELETE', url: '/admin/v1/merchants' }), 404, 'NotFound');
  });

  it('answers malformed JSON with 400 BadRequest and changes nothing', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expectEnvelope(res, 400, 'BadRequest');
    const [row] = await ctx.db.sql`select count(*)::int as n from merchants`;
    expect(row!.n).toBe(0);
  });

  it('answers a wrong content type with 400 BadRequest', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { ...adminHeaders, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expectEnvelope(res, 400, 'BadRequest');
  });

  it('answers bodies over 64 KiB with 413 PayloadTooLarge', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: adminHeaders,
      payload: { name: 'x'.repeat(70 * 1024) },
    });
    expectEnvelope(res, 413, 'PayloadTooLarge');
  });

  it('gives validation errors details with a path per problem', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: adminHeaders,
      payload: { commissionBps: 'x', nope: 1 },
    });
    const body = expectEnvelope(res, 422, 'ValidationError');
    expect(body.details).toEqual(
      expect.arrayContaining([
        { path: 'name', message: expect.any(String) },
        { path: 'commissionBps', message: expect.any(String) },
        { path: 'nope', message: 'Unknown field.' },
      ]),
    );
  });

  it('hides internal errors: 500 InternalError with no stack or database message', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/_boom' });
    const body = expectEnvelope(res, 500, 'InternalError');
    expect(res.body).not.toContain('secret_table');
    expect(res.body).not.toContain('db.ts');
    expect(body).not.toHaveProperty('stack');
  });

  it('answers /api/v1/payments with 404 NotImplemented pointing to /transactions/{id}', async () => {
    const body = expectEnvelope(await ctx.app.inject({ method: 'GET', url: '/api/v1/payments' }), 404, 'NotImplemented');
    expect(body.message).toContain('/transactions/{id}');
  });

  it('answers a settlement, no longer NotImplemented, only with a key', async () => {
    expectEnvelope(await ctx.app.inject({ method: 'GET', url: '/api/v1/settlements/SV_abc' }), 401, 'Unauthorized');
    const m = await createApprovedMerchant(ctx.app);
    const headers = { authorization: `Bearer ${m.apiKey}` };
    expectEnvelope(await ctx.app.inject({ method: 'GET', url: '/api/v1/settlements/SV_abc', headers }), 404, 'NotFound');
  });

  it('serves /healthz and /readyz with both dependencies up', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ ok: true });
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true, checks: { postgres: 'ok', temporal: 'ok' } });
  });

  it('documents every route in an OpenAPI 3 document and serves a docs page', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/admin/v1/merchants',
        '/admin/v1/merchants/{id}/approve',
        '/admin/v1/settings/payments',
        '/api/v1/transactions/{id}',
        '/healthz',
      ]),
    );
    const create = doc.paths['/admin/v1/merchants'].post;
    expect(create.requestBody.content['application/json'].schema.required).toContain('name');
    const docs = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});
