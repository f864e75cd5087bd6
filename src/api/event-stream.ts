import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';

/**
 * Takes the response over from Fastify and starts a text/event-stream on it: headers that keep
 * proxies from caching or buffering it, then the client's reconnect delay. What comes before (the
 * checks, whose errors Fastify answers in the envelope) must be done by then.
 */
export function startEventStream(request: FastifyRequest, reply: FastifyReply, reconnectMs: number): ServerResponse {
  const res = reply.raw;
  void reply.hijack();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
    // Written by hand, past the app's onSend hooks: the header they add to every other answer.
    'x-content-type-options': 'nosniff',
    connection: 'keep-alive',
  });
  res.write(`retry: ${reconnectMs}\n\n`);
  return res;
}
