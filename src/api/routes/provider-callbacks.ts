import type { FastifyPluginAsync } from 'fastify';
import { CallbackRefused, CallbackTermsMismatch } from '../../payments';

/**
 * Provider callbacks: the raw body and headers go to the payment engine's one ingestion path, which
 * verifies, dedupes and hands the fact to the payment's workflow. The provider retries anything but
 * 2xx, and every non-2xx leaves state as it was.
 */
const providerCallbackRoutes: FastifyPluginAsync = async (app) => {
  // The signature covers the exact bytes sent: keep the body as a string, parse after verifying.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post<{ Params: { provider: string } }>('/providers/:provider/callbacks', { schema: { hide: true } }, async (request) => {
    const raw = typeof request.body === 'string' ? request.body : '';
    try {
      return await app.payments.ingestProviderEvent(request.params.provider, raw, request.headers);
    } catch (err) {
      // A refused callback leaves no row behind: this line is its only trace for an operator.
      if (err instanceof CallbackRefused || err instanceof CallbackTermsMismatch) {
        request.log.warn({ provider: request.params.provider, reason: err.reason }, 'provider callback refused');
      }
      throw err;
    }
  });
};

export default providerCallbackRoutes;
