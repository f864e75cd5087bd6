import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

// Exported for the ops CLI's compile-time check of what it reads (src/cli/render.ts).
export const paymentsView = z.object({ ok: z.literal(true), enabled: z.boolean(), updatedAt: z.string().nullable() });

// The payment kill switch (docs/operations.md, SvcPaymentsDisabled): off blocks every new payment with 403 PaymentsDisabled,
// without touching payments already under way.
const adminSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.get(
    '/settings/payments',
    {
      schema: {
        tags,
        security,
        summary: 'Read the payment kill switch',
        description: 'While payments are disabled, new payments answer 403 PaymentsDisabled; payments already open go on.',
        response: { 200: paymentsView },
      },
    },
    async () => {
      const s = await app.payments.killSwitch.read();
      return { ok: true as const, enabled: s.enabled, updatedAt: s.updatedAt?.toISOString() ?? null };
    },
  );

  app.put(
    '/settings/payments',
    {
      schema: {
        tags,
        security,
        summary: 'Turn new payments on or off platform-wide',
        description: 'Takes effect at once for every API process; payments already open go on.',
        body: z.strictObject({ enabled: z.boolean() }),
        response: { 200: paymentsView },
      },
    },
    async (request) => {
      const s = await app.payments.killSwitch.set(request.body.enabled);
      request.log.warn({ enabled: s.enabled }, 'payment kill switch changed');
      return { ok: true as const, enabled: s.enabled, updatedAt: s.updatedAt.toISOString() };
    },
  );
};

export default adminSettingsRoutes;
