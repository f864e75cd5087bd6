import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { signedInMember } from '../support/dashboard';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// X-Content-Type-Options: nosniff on every answer of the service, whichever face or layer wrote it:
// a browser must never guess a type (a JSON body with a merchant's text read as HTML, say).
const ctx = useTestApp({}, { listen: true });

const NOSNIFF = 'nosniff';

describe('X-Content-Type-Options on every response', () => {
  it('is on routes, errors, 404s, framework errors, pages, docs and the dashboard', async () => {
    const { apiKey } = await createApprovedMerchant(ctx.app);
    const requests: { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string }[] = [
      { method: 'GET', url: '/healthz' },
      { method: 'GET', url: '/api/v1/openapi.json' },
      { method: 'GET', url: '/docs/' },
      { method: 'GET', url: '/api/v1/transactions/SV_none' },
      { method: 'GET', url: '/api/v1/transactions/SV_none', headers: { authorization: `Bearer ${apiKey}` } },
      { method: 'GET', url: '/api/v1/nothing-here' },
      { method: 'GET', url: '/api/v1/%zz' },
      { method: 'GET', url: '/admin/v1/merchants', headers: adminHeaders },
      { method: 'GET', url: '/admin/v1/merchants' },
      {
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: { ...adminHeaders, 'content-type': 'application/json' },
        payload: '{"name":',
      },
      { method: 'GET', url: '/pay/SV_none' },
      { method: 'GET', url: '/dashboard' },
      { method: 'GET', url: '/dashboard/api/me' },
      { method: 'GET', url: '/dashboard/api/nothing-here' },
      { method: 'POST', url: '/api/simple/nothing-here' },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject(request);
      expect(res.headers['x-content-type-options'], `${request.method} ${request.url} (${res.statusCode})`).toBe(NOSNIFF);
    }
  });

  it('is on a JSON, an HTML and a CSV answer, of the dashboard and of the admin API', async () => {
    const { id } = await createApprovedMerchant(ctx.app);
    const { client } = await signedInMember(ctx.app, ctx.db.sql, id, 'nosniff-owner@example.com', 'owner');
    const answers = [
      { what: 'dashboard JSON', type: /^application\/json/, res: await client.call('GET', '/me') },
      { what: 'dashboard CSV', type: /^text\/csv/, res: await client.call('GET', '/audit-log.csv') },
      { what: 'dashboard HTML', type: /^text\/html/, res: await ctx.app.inject({ method: 'GET', url: '/dashboard/' }) },
      {
        what: 'admin CSV',
        type: /^text\/csv/,
        res: await ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${id}/settlements.csv`, headers: adminHeaders }),
      },
    ];
    for (const { what, type, res } of answers) {
      expect(res.headers['content-type'], what).toMatch(type);
      expect(res.headers['x-content-type-options'], `${what} (${res.statusCode})`).toBe(NOSNIFF);
    }
    // The signed-in answers are the routes' own, not an error's (errors set it by hand).
    expect(answers.filter((a) => a.what !== 'dashboard HTML').map((a) => a.res.statusCode)).toEqual([200, 200, 200]);
  });

  it('is on a server-sent event stream', async () => {
    const { apiKey } = await createApprovedMerchant(ctx.app);
    const aborted = new AbortController();
    const res = await fetch(`${ctx.baseUrl}/api/v1/events/stream`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: aborted.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe(NOSNIFF);
    aborted.abort();
  });

  it('is on the answer the HTTP parser writes itself', async () => {
    const { port } = new URL(ctx.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.toLowerCase()).toContain(`x-content-type-options: ${NOSNIFF}`);
  });
});
