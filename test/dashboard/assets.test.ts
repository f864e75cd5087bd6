import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_DIST, pickEncoding } from '../../src/api/dashboard/plugin';
import { useTestApp } from '../support/harness';

// The dashboard's built files as a browser receives them: one chunk per page besides the entry, each
// sent in the compressed copy the build made (brotli, else gzip, as Accept-Encoding allows), cached
// for good under its hashed name; the page itself never cached (it carries a fresh CSP nonce).
const ctx = useTestApp();

const scriptsOf = (html: string) => [...html.matchAll(/(?:src|href)="\/dashboard\/assets\/([^"]+)"/g)].map((m) => m[1]!);

describe('the dashboard’s files', () => {
  it('sends each file compressed as the browser accepts, with long-lived cache headers; the page is not cached', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    const files = scriptsOf(page.body);
    const entry = files.find((f) => f.endsWith('.js'))!;
    expect(entry).toMatch(/^index-[\w-]+\.js$/);
    expect(files.some((f) => f.endsWith('.css'))).toBe(true);

    const plain = await ctx.app.inject({ method: 'GET', url: `/dashboard/assets/${entry}`, headers: { 'accept-encoding': 'identity' } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.vary).toBe('accept-encoding');

    const br = await ctx.app.inject({
      method: 'GET',
      url: `/dashboard/assets/${entry}`,
      headers: { 'accept-encoding': 'gzip, deflate, br, zstd' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);

    const gz = await ctx.app.inject({ method: 'GET', url: `/dashboard/assets/${entry}`, headers: { 'accept-encoding': 'gzip, br;q=0' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);

    const css = files.find((f) => f.endsWith('.css'))!;
    const style = await ctx.app.inject({ method: 'GET', url: `/dashboard/assets/${css}`, headers: { 'accept-encoding': 'br' } });
    expect(style.headers['content-encoding']).toBe('br');
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('keeps each page and the chart library out of what the first page loads: they come in chunks of their own', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/dashboard/' });
    const entry = scriptsOf(page.body).find((f) => f.endsWith('.js'))!;
    const get = async (file: string) => (await ctx.app.inject({ method: 'GET', url: `/dashboard/assets/${file}` })).body;
    const code = await get(entry);
    // The entry names each page's chunk, for the router to load when that page is opened.
    const chunks = [...code.matchAll(/"assets\/([\w-]+\.js)"/g)].map((m) => m[1]!);
    for (const name of ['overview', 'payments', 'payment', 'money', 'developers', 'security', 'quickstart', 'forms']) {
      expect(
        chunks.some((c) => new RegExp(`^${name}-[\\w-]+\\.js$`).test(c)),
        name,
      ).toBe(true);
    }
    // What loads with the entry (it and its static imports) holds none of recharts (its class names)
    // nor zod (the forms' checks, fetched once a form's page is painted), but the sign-in page itself.
    const statics = [...code.matchAll(/from"\.\/([\w-]+\.js)"/g)].map((m) => m[1]!);
    expect(statics.length).toBeGreaterThan(0);
    for (const file of [entry, ...statics]) {
      expect((await get(file)).includes('recharts-'), file).toBe(false);
      expect((await get(file)).includes('ZodError'), file).toBe(false);
    }
    expect(code).toContain('Forgot your password?');
  });

  it('chooses brotli, then gzip, by the q-values of Accept-Encoding', () => {
    const both = { br: true, gzip: true };
    expect(pickEncoding('gzip, deflate, br', both)).toBe('br');
    expect(pickEncoding('br;q=0, gzip;q=0.5', both)).toBe('gzip');
    expect(pickEncoding('*', both)).toBe('br');
    expect(pickEncoding('*;q=0', both)).toBe('identity');
    expect(pickEncoding('gzip;q=0, *', both)).toBe('br');
    expect(pickEncoding(undefined, both)).toBe('identity');
    expect(pickEncoding('identity', both)).toBe('identity');
    expect(pickEncoding('br', { br: false, gzip: true })).toBe('identity');
    expect(pickEncoding(['gzip', 'br'], { br: false, gzip: true })).toBe('gzip');
  });
});

describe('the Radix Themes styles the build keeps', () => {
  it('styles every Radix Themes class the dashboard’s code names, and none of the components it does not use', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/dashboard/' });
    const cssFile = scriptsOf(page.body).find((f) => f.endsWith('.css'))!;
    const css = (await ctx.app.inject({ method: 'GET', url: `/dashboard/assets/${cssFile}`, headers: { 'accept-encoding': 'identity' } }))
      .body;
    const files = readdirSync(path.join(DASHBOARD_DIST, 'assets')).filter((f) => f.endsWith('.js'));
    const named = new Set(
      files.flatMap((f) => [...readFileSync(path.join(DASHBOARD_DIST, 'assets', f), 'utf8').matchAll(/\brt-[A-Z]\w+/g)].map((m) => m[0])),
    );
    // The classes Radix Themes styles at all (some only name a part), but its table root's scroll area:
    // in the code with its table module, never drawn (dashboard/src/table.tsx).
    const full = readFileSync(require.resolve('@radix-ui/themes/components.css'), 'utf8');
    const styledIn = (sheet: string, c: string) => new RegExp(`\\.${c}(?![\\w-])`).test(sheet);
    const styled = [...named].filter((c) => styledIn(full, c) && !c.startsWith('rt-ScrollArea'));
    expect(styled.length).toBeGreaterThan(10);
    expect(styled.filter((c) => !styledIn(css, c))).toEqual([]);
    expect(css).not.toContain('.rt-SelectTrigger');
    // No copy of a size for a screen width: the dashboard gives no responsive props.
    expect(css).not.toMatch(/\.(xs|sm|md|lg|xl)\\:rt-/);
  });
});
