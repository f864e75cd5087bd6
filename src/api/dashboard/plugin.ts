import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import cookie from '@fastify/cookie';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import type { AccountServices } from '../../accounts';
import type { MerchantMoney } from '../../payments/merchant-money';
import dashboardApi from './api';
import { csrfCookieIssuer } from './cookies';
import devMailboxPage from './dev-mailbox';
import { securityHeaders } from './headers';
import { notFound } from '../../domain/errors';
import { html } from '../../domain/html';
import { PROJECT_ROOT } from '../../project-root';
import { countSignUp, withResetRequestLimits, withSignInLimits } from '../plugins/rate-limit';

// The merchant dashboard at /dashboard/: the files Vite built from dashboard/
// (tools/dev/dashboard-build.ts), every other path under /dashboard/ answered with the app's page
// so that a reload of any of its URLs works, and its internal API under /dashboard/api/.

/** Where the build puts the files (the Dockerfile's build stage too). */
export const DASHBOARD_DIST = path.join(PROJECT_ROOT, 'dist', 'dashboard');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

function readBuild(dir: string) {
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const assetsDir = path.join(dir, 'assets');
  // A Map of the built files, read once: no request path reaches the file system.
  const read = (f: string) => {
    const file = path.join(assetsDir, f);
    return existsSync(file) ? readFileSync(file) : undefined;
  };
  const assets = new Map(
    (existsSync(assetsDir) ? readdirSync(assetsDir) : [])
      .filter((f) => TYPES[path.extname(f)])
      .map((f) => [f, { body: read(f)!, br: read(`${f}.br`), gzip: read(`${f}.gz`), type: TYPES[path.extname(f)]! }]),
  );
  return { index: readFileSync(indexFile, 'utf8'), assets };
}

/**
 * The encoding to send a built file in: brotli, else gzip, when the request's Accept-Encoding takes
 * it (a q of 0 refuses it, as `*` without either named accepts both) and a copy in it was built.
 */
export function pickEncoding(header: string | string[] | undefined, built: { br: boolean; gzip: boolean }): 'br' | 'gzip' | 'identity' {
  const q = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const weight = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    q.set(name, weight === undefined ? 1 : Number(weight));
  }
  const accepts = (coding: string) => (q.get(coding) ?? q.get('*') ?? 0) > 0;
  if (built.br && accepts('br')) return 'br';
  if (built.gzip && accepts('gzip')) return 'gzip';
  return 'identity';
}

const NOT_BUILT = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (npm start and npm test do it themselves).</p></main></body></html>`
  .html;

export interface DashboardOptions {
  config: Config;
  db: Database;
  now: () => Date;
  /** The built files (default: dist/dashboard). */
  dir?: string | undefined;
  /** Built by app.ts with the payment engine: who acts for a merchant, and a merchant's money. */
  accounts: AccountServices;
  money: MerchantMoney;
}

const dashboardPages: FastifyPluginAsync<DashboardOptions> = async (
  app,
  { config, db, now, dir = DASHBOARD_DIST, accounts: services, money },
) => {
  const build = readBuild(dir);
  const devMailboxDir = config.mail.devMailboxDir;
  const secureCookies = config.nodeEnv === 'production';

  // Encapsulated: the cookie parser and the CSRF cookie apply to the dashboard's routes only (the
  // API's write guard is its own plugin's hook: api.ts).
  await app.register(cookie);
  app.addHook('onRequest', csrfCookieIssuer(secureCookies));
  const { accounts } = services;
  await app.register(dashboardApi, {
    prefix: '/dashboard/api',
    signInLimited: (subjects, attempt) =>
      withSignInLimits(db, subjects, attempt, (tx) => accounts.warnOfSignInGuessing(tx, subjects.email, subjects.ip)),
    resetLimited: (subjects, attempt) => withResetRequestLimits(db, subjects, attempt),
    signUpLimited: (subjects) => countSignUp(db, subjects),
    secureCookies,
    accounts,
    credentials: services.credentials,
    payments: app.payments,
    money,
    publicBaseUrl: config.http.publicBaseUrl,
    ownOrigin: new URL(config.http.publicBaseUrl).origin,
    now,
    team: services.team,
    audit: services.audit,
    twoFactor: services.twoFactor,
  });
  if (devMailboxDir) {
    await app.register(devMailboxPage, { dir: devMailboxDir });
  } else {
    // Production (or no local sink): the mailbox does not exist, and the path says so.
    app.get('/dashboard/dev/mail', { schema: { hide: true } }, async (_request, reply) =>
      reply.status(404).type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('Not found'),
    );
  }

  app.get<{ Params: { file: string } }>('/dashboard/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = build?.assets.get(request.params.file);
    if (!asset) return reply.status(404).type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('Not found');
    // File names carry a hash of their content: they never change. The build compressed each once
    // (tools/dev/dashboard-build.ts); the copy the browser takes is sent as it is.
    const encoding = pickEncoding(request.headers['accept-encoding'], { br: Boolean(asset.br), gzip: Boolean(asset.gzip) });
    reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff');
    if (encoding === 'br') return reply.header('content-encoding', 'br').send(asset.br);
    if (encoding === 'gzip') return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  });

  const page = async (_request: unknown, reply: FastifyReply) => {
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(reply, nonce).type('text/html; charset=utf-8');
    if (!build) return reply.status(503).send(NOT_BUILT);
    return reply.send(build.index.replace('__CSP_NONCE__', nonce));
  };
  // The internal API answers in the envelope, never with the app's page.
  app.all('/dashboard/api/*', { schema: { hide: true } }, async () => {
    throw notFound('Route');
  });

  app.get('/dashboard', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard/', 301));
  app.get('/dashboard/', { schema: { hide: true } }, page);
  app.get('/dashboard/*', { schema: { hide: true } }, page);
};

export default dashboardPages;
