import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PaymentService } from '../../payments';
import type { MerchantLinkRow } from '../../payments/rows';
import { createPaymentLinkBody } from '../routes/payment-links';
import { paymentLinkView } from '../routes/payment-link-view';
import { rolesFor } from '../../domain/dashboard-roles';
import { actorOf, hide, type SignedIn } from './guard';
import { viewPaymentRow } from './payments';
import { linkView } from './views/links';
import { ok } from './views/ok';
import { paymentRowView } from './views/payments';

// Payment links. Owners, admins and developers create and deactivate them (a link
// takes money into wallets an owner or admin chose, and developers make links through the v1 API
// already); every role reads them and their sessions.

const linkParams = z.object({ linkId: z.string().max(100) });

export interface LinkRoutesOptions {
  payments: PaymentService;
  signedIn: SignedIn;
  publicBaseUrl: string;
}

const linkRoutes: FastifyPluginAsyncZod<LinkRoutesOptions> = async (app, { payments, signedIn, publicBaseUrl }) => {
  const view = (link: MerchantLinkRow): z.infer<typeof linkView> => ({
    ...paymentLinkView(link, publicBaseUrl),
    // Its page takes no payment once the expiry has passed, even before its workflow wrote it.
    status: payments.linkStatus(link),
    sessions: link.sessions,
    completed: link.completed,
  });

  app.get('/payment-links', { schema: { hide, response: { 200: z.object({ ok, links: z.array(linkView) }) } } }, async (request) => {
    const s = await signedIn(request, rolesFor('payments.read'));
    return { ok: true as const, links: (await payments.merchantLinks.list(s.merchantId)).map(view) };
  });

  app.post(
    '/payment-links',
    { schema: { hide, body: createPaymentLinkBody, response: { 201: z.object({ ok, link: linkView }) } } },
    async (request, reply) => {
      const s = await signedIn(request, rolesFor('links.manage'));
      return reply
        .status(201)
        .send({ ok: true as const, link: view(await payments.merchantLinks.create(actorOf(request, s), request.body)) });
    },
  );

  app.get(
    '/payment-links/:linkId',
    {
      schema: {
        hide,
        params: linkParams,
        response: { 200: z.object({ ok, link: linkView, sessions: z.array(paymentRowView) }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const link = await payments.merchantLinks.find(s.merchantId, request.params.linkId);
      // The newest sessions of the link; the payment list filtered by link pages through all of them.
      const page = await payments.merchantPayments.list(s.merchantId, { paymentLinkId: link.id }, { limit: 100 });
      return { ok: true as const, link: view(link), sessions: page.items.map(viewPaymentRow) };
    },
  );

  app.post(
    '/payment-links/:linkId/deactivate',
    { schema: { hide, params: linkParams, response: { 200: z.object({ ok, link: linkView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('links.manage'));
      return { ok: true as const, link: view(await payments.merchantLinks.deactivate(actorOf(request, s), request.params.linkId)) };
    },
  );
};

export default linkRoutes;
