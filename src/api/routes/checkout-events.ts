import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { AppError, notFound } from '../../domain/errors';
import type { PaymentContext } from '../../payments';
import { customerStatus, customerStatuses, type CustomerStatus } from '../../payments/customer-status';
import { createLiveStatusHub } from '../live-status';
import { startEventStream } from '../event-stream';
import { requireCanonicalId } from './lookup-id';

export interface LiveStatusSettings {
  /** How often the watched sessions are read from Postgres (default 1000 ms). */
  intervalMs?: number;
  /** A comment line this often keeps proxies from closing a quiet stream (default 15 s). */
  heartbeatMs?: number;
  /** Open streams one client address may hold (default 8; a customer's tabs, not a crawler's thousands). */
  maxStreamsPerClient?: number;
  /** Open streams the process holds at most (default 5000). */
  maxStreams?: number;
  /** A stream ends after this long and the browser's EventSource opens a fresh one (default 10 min), so none is held forever. */
  maxStreamMs?: number;
}

// What a stream looks like, for the API's document: its reconnect delay, then a status event.
const STREAM_EXAMPLE = [
  'retry: 2000',
  '',
  'event: status',
  'data: {"id":"SV_8mQ2vX4kT9pL3nR7wY1cZ5bH","status":"pending","received":"10.00","remaining":"15.00","confirmations":1,"requiredConfirmations":3,"exception":null}',
  '',
  '',
].join('\n');

// Sent once per stream: how long a browser waits before it reconnects after the stream ends.
const RECONNECT_MS = 2000;

/**
 * Decisions §14: `GET /api/v1/checkout/sessions/{id}/events`, public like the customer lookup, as
 * server-sent events. The first event is the status now; then one `status` event per change, from
 * the process's one poller (api/live-status.ts). The stream stays open after the session ends: late
 * money and its refund are changes a customer's open tab must see too.
 */
const checkoutEventRoutes: FastifyPluginAsyncZod<Pick<PaymentContext, 'db' | 'config'> & { live?: LiveStatusSettings }> = async (
  app,
  deps,
) => {
  const settings = deps.live ?? {};
  const heartbeatMs = settings.heartbeatMs ?? 15_000;
  const perClient = settings.maxStreamsPerClient ?? 8;
  const maxStreams = settings.maxStreams ?? 5000;
  const maxStreamMs = settings.maxStreamMs ?? 10 * 60_000;
  const hub = createLiveStatusHub({
    read: (ids) => customerStatuses(deps, ids),
    intervalMs: settings.intervalMs,
    onError: (err) => app.log.warn({ err }, 'live status read failed'),
  });
  const byClient = new Map<string, number>();
  const open = new Set<ServerResponse>();

  // Before the server stops taking connections: end every stream, or closing would wait for them.
  app.addHook('preClose', async () => {
    hub.stop();
    for (const res of open) res.end();
  });

  app.get(
    '/checkout/sessions/:id/events',
    {
      schema: {
        operationId: 'streamCheckoutSessionEvents',
        tags: ['checkout'],
        summary: 'Live status of a checkout session as server-sent events (no authentication)',
        description:
          'text/event-stream: a `status` event now and at every change, its data the JSON of { id, status, received, remaining, confirmations, requiredConfirmations, exception }; a comment line every 15 s. At most 8 open streams per client address (429 beyond).',
        params: z.object({ id: z.string() }),
        response: {
          200: z.string().meta({
            description:
              'The stream: `status` events whose data is the JSON of { id, status, received, remaining, confirmations, requiredConfirmations, exception }, and a comment line every 15 s.',
            contentMediaType: 'text/event-stream',
            examples: [STREAM_EXAMPLE],
          }),
        },
      },
    },
    async (request, reply) => {
      const id = requireCanonicalId(request.params.id);
      const first = await customerStatus(deps, id);
      if (!first) throw notFound('Checkout session');
      const client = request.ip;
      if ((byClient.get(client) ?? 0) >= perClient) {
        throw new AppError('RateLimited', `At most ${perClient} status streams may be open from one address.`, { retryAfterSeconds: 10 });
      }
      if (open.size >= maxStreams) throw new AppError('Unavailable', 'Too many status streams are open; try again in a moment.');

      byClient.set(client, (byClient.get(client) ?? 0) + 1);
      const res = startEventStream(request, reply, RECONNECT_MS);
      open.add(res);
      const send = (status: CustomerStatus) => res.write(`event: status\ndata: ${JSON.stringify(status)}\n\n`);
      send(first);

      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        unwatch();
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        open.delete(res);
        const left = (byClient.get(client) ?? 1) - 1;
        if (left > 0) byClient.set(client, left);
        else byClient.delete(client);
        if (!res.writableEnded) res.end();
      };
      const unwatch = hub.watch(
        id,
        (status) => {
          if (status === null) end();
          else send(status);
        },
        first,
      );
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
      const lifetime = setTimeout(end, maxStreamMs);
      request.raw.on('close', end);
      res.on('close', end);
      res.on('error', end);
    },
  );
};

export default checkoutEventRoutes;
