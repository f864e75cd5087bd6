import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { DbHandle } from '../../db/client';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(fn: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await withTimeout(fn(), CHECK_TIMEOUT_MS);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

const readiness = z.object({
  ok: z.boolean(),
  checks: z.object({ postgres: z.enum(['ok', 'unavailable']), temporal: z.enum(['ok', 'unavailable']) }),
});
const ready = readiness.meta({ examples: [{ ok: true, checks: { postgres: 'ok', temporal: 'ok' } }] });
const notReady = readiness.meta({ examples: [{ ok: false, checks: { postgres: 'ok', temporal: 'unavailable' } }] });

const healthRoutes: FastifyPluginAsyncZod<{ db: DbHandle; temporal: Client }> = async (app, { db, temporal }) => {
  // Liveness: the process answers. It does not touch dependencies, so a Postgres outage does not
  // get healthy processes restarted.
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Liveness',
        description: 'The process answers. No dependency is checked, so a Postgres outage does not get healthy processes restarted.',
        response: { 200: z.object({ ok: z.literal(true) }) },
      },
    },
    async () => ({
      ok: true as const,
    }),
  );

  // Readiness: both backing services answer, so a load balancer sends traffic only here.
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Readiness',
        description:
          'Postgres and Temporal both answer within 2 s: a load balancer sends traffic only to a ready process. 503 names the one that did not.',
        response: { 200: ready, 503: notReady },
      },
    },
    async (_request, reply) => {
      const [postgres, temporalState] = await Promise.all([
        check(() => db.sql`select 1`),
        // The deadline ends the client's own retries too, so nothing keeps calling after we answered.
        check(() => temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => temporal.workflowService.getSystemInfo({}))),
      ]);
      const ok = postgres === 'ok' && temporalState === 'ok';
      return reply.status(ok ? 200 : 503).send({ ok, checks: { postgres, temporal: temporalState } });
    },
  );
};

export default healthRoutes;
