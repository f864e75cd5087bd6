import Fastify, { type FastifyInstance } from 'fastify';

export interface ReceivedDelivery {
  at: number;
  headers: Record<string, string>;
  rawBody: string;
  body: any;
  path: string;
}

/**
 * A merchant's webhook endpoint on a real local port: it keeps each raw body as received and answers
 * with what `respond` decides, so tests can make it fail, hang or redirect.
 */
export async function startReceiver(
  respond: (delivery: ReceivedDelivery, index: number) => { status: number; delayMs?: number; location?: string } = () => ({ status: 200 }),
): Promise<{ url: string; received: ReceivedDelivery[]; close: () => Promise<void>; app: FastifyInstance }> {
  const app = Fastify();
  const received: ReceivedDelivery[] = [];
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/*', async (request, reply) => {
    const rawBody = request.body as string;
    const delivery: ReceivedDelivery = {
      at: Date.now(),
      headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
      rawBody,
      body: JSON.parse(rawBody),
      path: request.url,
    };
    received.push(delivery);
    const answer = respond(delivery, received.length - 1);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.location) void reply.header('location', answer.location);
    return reply.status(answer.status).send({ received: true });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, received, close: () => app.close(), app };
}
