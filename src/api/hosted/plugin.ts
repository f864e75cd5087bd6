import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { PaymentContext } from '../../payments';
import type { StatusStreams } from '../live-status';
import { renderMessagePage } from './checkout-page';
import { isForeignFormPost } from './same-origin';
import hostedCheckoutRoutes from '../routes/hosted-checkout';
import hostedLinkRoutes from '../routes/hosted-links';
import simpleHostedRoutes from '../routes/simple-hosted';

declare module 'fastify' {
  interface FastifyReply {
    /** Sends a hosted page with the pages' one set of security headers; `formTargets` are origins its forms may lead to. */
    page(status: number, html: string, options?: PageOptions): FastifyReply;
  }
}

interface PageOptions {
  formTargets?: (string | null | undefined)[];
  /** Pages that need no script at all get no script-src (nor connect-src) in their policy. */
  scripts?: boolean;
}

const ASSETS_DIR = path.join(__dirname, 'assets');
const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/**
 * Every page a customer sees (checkout, payment link, simple order) as one encapsulated plugin:
 * the same headers (strict CSP, no framing, same-origin referrers so form posts carry a real
 * Origin, no caching), the same refusal of foreign form posts, and the assets served from files.
 */
const hostedPages: FastifyPluginAsync<PaymentContext & { providerOrigins: string[]; streams: StatusStreams }> = async (app, deps) => {
  const ownOrigin = new URL(deps.config.http.publicBaseUrl).origin;
  // Read once; a Map, so no file name (such as __proto__) can reach anything but an asset.
  const assets = new Map(
    readdirSync(ASSETS_DIR)
      .filter((f) => TYPES[path.extname(f)])
      .map((f) => [f, { body: readFileSync(path.join(ASSETS_DIR, f)), type: TYPES[path.extname(f)]! }]),
  );

  app.decorateReply('page', function (this: FastifyReply, status: number, body: string, options: PageOptions = {}) {
    // form-action also governs where a form's redirect may go: the provider's page after Pay, the
    // merchant's cancel URL after Cancel.
    const formTargets = [...new Set(["'self'", ...(options.formTargets ?? []).filter((t): t is string => Boolean(t))])].join(' ');
    const scripts = options.scripts === false ? '' : "script-src 'self'; connect-src 'self'; ";
    return this.status(status)
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        `default-src 'none'; ${scripts}style-src 'self'; img-src 'self' data:; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .send(body);
  });

  // The pages' forms post url-encoded fields; each route reads only the ones it knows.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });

  app.addHook('preHandler', async (request, reply) => {
    if (isForeignFormPost(request, ownOrigin)) {
      return reply.page(403, renderMessagePage('Not allowed', 'This action must come from the payment page.'));
    }
  });

  app.get<{ Params: { file: string } }>('/pay/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) return reply.page(404, renderMessagePage('Not found', 'There is nothing here.'));
    return reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });

  await app.register(hostedCheckoutRoutes, deps);
  await app.register(hostedLinkRoutes, deps);
  await app.register(simpleHostedRoutes, deps);
};

export default hostedPages;
