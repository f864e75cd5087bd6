import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness';

// The dashboard's built files at /dashboard/ (npm test's pretest builds them), with the hosted pages'
// strictness: own-origin scripts and styles only, no framing, no caching of the page.
describe('dashboard pages', () => {
  const ctx = useTestApp();

  it('serves the app at /dashboard/ with a strict CSP whose nonce is the page’s', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(res.body).toContain(`<meta name="csp-nonce" content="${nonce}"`);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
    // A fresh nonce per page.
    const again = await ctx.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(again.headers['content-security-policy']).not.toBe(csp);
  });

  it('answers every app URL with the app, so a reload works', async () => {
    for (const url of ['/dashboard/sign-in', '/dashboard/developers', '/dashboard/payments/SV_x', '/dashboard/verify-email?token=x']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="root">');
    }
    const bare = await ctx.app.inject({ method: 'GET', url: '/dashboard' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/dashboard/');
  });

  it('serves the built assets, immutable, and nothing else', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/dashboard/' });
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeTruthy();
    const js = await ctx.app.inject({ method: 'GET', url: script! });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['cache-control']).toContain('immutable');
    for (const url of ['/dashboard/assets/nope.js', '/dashboard/assets/..%2F..%2Fpackage.json', '/dashboard/assets/__proto__']) {
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    }
  });

  it('answers an unknown internal API path with 404 in the envelope, not the app', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/dashboard/api/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: 'NotFound', requestId: res.headers['x-request-id'] });
  });
});
