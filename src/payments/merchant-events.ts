import { lastMerchantEventSeq, listMerchantEventsAfter } from '../db/queries/events';
import type { PaymentContext } from './context';

/** One of a merchant's events as its stream sends it: the webhook body, byte for byte, and its place in the merchant's order. */
export interface MerchantEvent {
  seq: number;
  id: string;
  type: string;
  body: string;
}

/**
 * The merchant's own events in the order they were stored (the events stream): the
 * `events` table, numbered per merchant (`seq`), is the durable source every webhook is made from.
 */
export function merchantEvents(ctx: Pick<PaymentContext, 'db'>) {
  return {
    /** Up to `limit` events after `afterSeq`, oldest first. */
    after: (merchantId: string, afterSeq: number, limit = 100): Promise<MerchantEvent[]> =>
      listMerchantEventsAfter(ctx.db, merchantId, afterSeq, limit),
    /** The seq of the merchant's latest event, 0 before any: where a fresh stream starts. */
    latestSeq: (merchantId: string): Promise<number> => lastMerchantEventSeq(ctx.db, merchantId),
  };
}
