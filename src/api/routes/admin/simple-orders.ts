import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../../../db/client';
import { listProviderEvents } from '../../../db/queries/provider-events';
import { findSimpleOrder } from '../../../db/queries/simple-orders';
import { AppError, notFound } from '../../../domain/errors';
import { isTransactionCode } from '../../../domain/ids';
import { adminOrderView } from '../../simple/views';

/** Operators' view of a simple-API order, with its provider events and its one webhook attempt. */
const adminSimpleOrderRoutes: FastifyPluginAsync<{ db: Database }> = async (app, { db }) => {
  app.get<{ Params: { code: string } }>('/simple-orders/:code', { schema: { tags: ['admin'] } }, async (request) => {
    const code = request.params.code;
    if (!isTransactionCode(code)) throw new AppError('InvalidId', 'A transaction code is a UUID.');
    const order = await findSimpleOrder(db, code.toLowerCase());
    if (!order) throw notFound('Simple order');
    const events = await listProviderEvents(db, order.transactionCode);
    return {
      ok: true,
      order: adminOrderView(order),
      providerEvents: events.map((e) => ({ eventId: e.eventId, type: e.type, state: e.state, note: e.note, receivedAt: e.receivedAt.toISOString() })),
    };
  });
};

export default adminSimpleOrderRoutes;
