import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import devMailboxPage from './dev-mailbox';
import { securityHeaders } from './headers';
import { notFound } from '../../domain/errors';
import { html } from '../../domain/html';

// The merchant dashboard (decisions §14) at /dashboard/: the files Vite built from dashboard/
// (src/devtools/dashboard-build.ts), every other path under /dashboard/ answered with the app's page
// so that a reload of any of its URLs works, and its internal API under /dashboard/api/.

/** Where the build puts the files (the Dockerfile's build stage too). */
export const DASHBOARD_DIST = path.resolve(__dirname, '..', '..', '..', 'dist', 'dashboard');

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
  const assets = new Map(
    (existsSync(assetsDir) ? readdirSync(assetsDir) : [])
      .filter((f) => TYPES[path.extname(f)])
      .map((f) => [f, { body: readFileSync(path.join(assetsDir, f)), type: TYPES[path.extname(f)]! }]),
  );
  return { index: readFileSync(indexFile, 'utf8'), assets };
}

const NOT_BUILT = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code> (npm start and npm test do it themselves).</p></main></body></html>`
  .html;

export interface DashboardOptions {
  dir?: string | undefined;
  /** The local SMTP sink's folder (development and tests only): the mailbox page shows it. */
  devMailboxDir: string | null;
}

const dashboardPages: FastifyPluginAsync<DashboardOptions> = async (app, { dir = DASHBOARD_DIST, devMailboxDir }) => {
  const build = readBuild(dir);
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
    // File names carry a hash of their content: they never change.
    return reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
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
