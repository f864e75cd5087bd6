import { once } from 'node:events';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { startEventStream } from '../event-stream';
import { bearerToken } from '../plugins/merchant-auth';

export interface EventStreamSettings {
  /** How often an open stream reads the merchant's new events from Postgres (default 1000 ms). */
  intervalMs?: number;
  /** A comment line this often keeps proxies from closing a quiet stream (default 15 s). */
  heartbeatMs?: number;
  /** Open streams one merchant may hold (default 5: a forwarder or two per developer, not a fleet). */
  maxStreamsPerMerchant?: number;
  /** How often an open stream authenticates its key again (default: the key cache window, else intervalMs). */
  recheckMs?: number;
  /** How long a stream stays open at most (default EVENT_STREAM_MAX_SECONDS). */
  maxLifetimeMs?: number;
}

// Events read per query: a stream resuming far behind catches up in pages rather than one huge read.
const PAGE = 100;
// Sent once per stream: how long an EventSource waits before it reconnects (with Last-Event-ID).
const RECONNECT_MS = 2000;

const STREAM_EXAMPLE = [
  `retry: ${RECONNECT_MS}`,
  '',
  'id: 42',
  'event: payment.completed',
  'data: {"event":"payment.completed","eventId":"evt_3Jq8nVb2LkT5xR9mWc4pYz7H","merchantId":"mrc_…","sessionId":"SV_8mQ2vX4kT9pL3nR7wY1cZ5bH","status":"completed","amount":"25.00","currency":"USD"}',
  '',
  ': keep-alive',
  '',
  '',
].join('\n');

/**
 * `GET /api/v1/events/stream`, the merchant's own events as server-sent events, for
 * the local forwarder (`npm run ops -- listen`). Each event's `id` is its place in the merchant's
 * order (`seq`), its `event` the type, its `data` the webhook body byte for byte. A stream starts
 * after the merchant's latest event, or after `Last-Event-ID` when the client resumes.
 *
 * New events are found by a short poll of the events table, per stream, on the (merchant, seq)
 * index: no connection held for LISTEN, nothing lost when a notification would have been (the
 * table is the truth either way, and a resume needs this same read), and any API process serves
 * any stream. A stream costs one indexed read a second, and a merchant holds only a few.
 *
 * A stream outlives the request that authenticated it, so it authenticates its key again from
 * Postgres once every key cache window: a revoked or expired key, a lost scope or a merchant no
 * longer approved ends it within the time any other request of that key would still pass. And it
 * ends after its maximum lifetime whatever happens, so no connection is held for ever; the client
 * reconnects with Last-Event-ID and misses nothing. Each ending writes a comment saying why.
 */
const merchantEventRoutes: FastifyPluginAsyncZod<{ stream?: EventStreamSettings }> = async (app, { stream = {} }) => {
  const intervalMs = stream.intervalMs ?? 1000;
  const heartbeatMs = stream.heartbeatMs ?? 15_000;
  const perMerchant = stream.maxStreamsPerMerchant ?? 5;
  const recheckMs = stream.recheckMs ?? intervalMs;
  const maxLifetimeMs = stream.maxLifetimeMs ?? 3_600_000;
  const byMerchant = new Map<string, number>();
  const open = new Set<ServerResponse>();

  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });

  app.get(
    '/events/stream',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'streamMerchantEvents',
        tags: ['webhooks'],
        summary: 'Your events as server-sent events (for a local forwarder)',
        description:
          'text/event-stream of the events your webhooks carry, in the order they were stored: each with `id` (its sequence number among your events), `event` (its type) and `data` (the webhook body, byte for byte; not signed: the stream itself is authenticated). ' +
          'Without `Last-Event-ID` the stream starts with the next new event; with it, every event after that id comes first, so a client that reconnects misses nothing. A comment line every 15 s keeps it open. ' +
          `At most ${perMerchant} streams per merchant (429 beyond). Errors come in the JSON envelope before the stream starts. ` +
          'The stream ends when its key is revoked or expires or the account is suspended (within the key cache window, API_KEY_CACHE_SECONDS), ' +
          'and after EVENT_STREAM_MAX_SECONDS (default an hour) in any case: reconnect with `Last-Event-ID` to resume.',
        security: [{ apiKey: [] }],
        headers: z.object({
          'last-event-id': z
            .string()
            .regex(/^\d{1,15}$/)
            .optional()
            .meta({ description: 'The `id` of the last event received: the stream resumes after it.', example: '42' }),
        }),
        response: {
          200: z.string().meta({
            description: 'The stream: one event per stored event (id, event type, webhook body as data), a comment line every 15 s.',
            contentMediaType: 'text/event-stream',
            examples: [STREAM_EXAMPLE],
          }),
        },
      },
    },
    async (request, reply) => {
      const merchantId = request.merchant!.id;
      const presented = bearerToken(request);
      const resumeAfter = request.headers['last-event-id'];
      if ((byMerchant.get(merchantId) ?? 0) >= perMerchant) {
        throw new AppError('RateLimited', `At most ${perMerchant} event streams may be open at once for one merchant.`, {
          retryAfterSeconds: 10,
        });
      }
      const events = app.payments.events;
      let cursor = resumeAfter !== undefined ? Number(resumeAfter) : await events.latestSeq(merchantId);

      byMerchant.set(merchantId, (byMerchant.get(merchantId) ?? 0) + 1);
      const res = startEventStream(request, reply, RECONNECT_MS);
      open.add(res);

      let ended = false;
      let reading = false;
      // Sends every event after the cursor, a page at a time; a slow client is waited for (drain)
      // rather than buffered without bound. One read at a time per stream.
      const pump = async () => {
        if (reading || ended) return;
        reading = true;
        try {
          for (;;) {
            const page = await events.after(merchantId, cursor, PAGE);
            for (const e of page) {
              if (ended) return;
              // Bodies are single-line JSON (JSON.stringify), so one `data:` line carries each whole.
              const fits = res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${e.body}\n\n`);
              cursor = e.seq;
              if (!fits) await once(res, 'drain');
            }
            if (page.length < PAGE) return;
          }
        } catch (err) {
          // Postgres briefly away: the next tick tries again from the same cursor.
          request.log.warn({ err }, 'event stream read failed');
        } finally {
          reading = false;
        }
      };
      // The last line before the server ends a stream: a comment (clients skip it) saying why.
      const endWith = (why: string) => {
        if (ended) return;
        if (!res.writableEnded) res.write(`: ${why}\n\n`);
        end();
      };
      const recheck = async () => {
        try {
          const merchant = await app.authenticateAgain(presented);
          if (!merchant.scopes.includes('transactions:read')) endWith('the API key lost the scope transactions:read');
        } catch (err) {
          if (err instanceof AppError) endWith('the API key is no longer valid, or the account is not approved');
          // Postgres briefly away: the key is checked again at the next tick.
          else request.log.warn({ err }, 'event stream key check failed');
        }
      };
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(poll);
        clearInterval(heartbeat);
        clearInterval(keyCheck);
        clearTimeout(lifetime);
        open.delete(res);
        const left = (byMerchant.get(merchantId) ?? 1) - 1;
        if (left > 0) byMerchant.set(merchantId, left);
        else byMerchant.delete(merchantId);
        if (!res.writableEnded) res.end();
        res.emit('drain');
      };
      const poll = setInterval(() => void pump(), intervalMs);
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
      const keyCheck = setInterval(() => void recheck(), recheckMs);
      const lifetime = setTimeout(() => endWith('the stream reached its maximum lifetime; reconnect with Last-Event-ID'), maxLifetimeMs);
      request.raw.on('close', end);
      res.on('close', end);
      res.on('error', end);
      void pump();
    },
  );
};

export default merchantEventRoutes;
