import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../domain/errors';
import type { PaymentContext } from '../../payments';
import { customerStatuses } from '../../payments/customer-status';
import type { StatusStreams } from '../live-status';
import { requireCanonicalId } from './lookup-id';

// What a stream looks like, for the API's document: its reconnect delay, then a status event.
const STREAM_EXAMPLE = [
  'retry: 2000',
  '',
  'event: status',
  'data: {"id":"SV_8mQ2vX4kT9pL3nR7wY1cZ5bH","status":"pending","received":"10.00","remaining":"15.00","confirmations":1,"requiredConfirmations":3,"exception":null,"declined":false}',
  '',
  '',
].join('\n');

/**
 * `GET /api/v1/checkout/sessions/{id}/events`, public like the customer lookup, as
 * server-sent events. The first event is the status now; then one `status` event per change, from
 * the process's one poller (api/live-status.ts). The stream stays open after the session ends: late
 * money and its refund are changes a customer's open tab must see too.
 */
const checkoutEventRoutes: FastifyPluginAsyncZod<Pick<PaymentContext, 'db' | 'config'> & { streams: StatusStreams }> = async (
  app,
  deps,
) => {
  const sessions = deps.streams.topic((ids) => customerStatuses(deps, ids));

  app.get(
    '/checkout/sessions/:id/events',
    {
      schema: {
        operationId: 'streamCheckoutSessionEvents',
        tags: ['checkout'],
        summary: 'Live status of a checkout session as server-sent events (no authentication)',
        description:
          'text/event-stream: a `status` event now and at every change, its data the JSON of { id, status, received, remaining, confirmations, requiredConfirmations, exception, declined }; a comment line every 15 s. At most 8 open streams per client address (429 beyond).',
        params: z.object({ id: z.string() }),
        response: {
          200: z.string().meta({
            description:
              'The stream: `status` events whose data is the JSON of { id, status, received, remaining, confirmations, requiredConfirmations, exception, declined }, and a comment line every 15 s.',
            contentMediaType: 'text/event-stream',
            examples: [STREAM_EXAMPLE],
          }),
        },
      },
    },
    async (request, reply) => {
      const id = requireCanonicalId(request.params.id);
      const first = await sessions.read(id);
      if (!first) throw notFound('Checkout session');
      sessions.serve(request, reply, id, first);
    },
  );
};

export default checkoutEventRoutes;
