import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { events, webhookAttempts, webhookDeliveries } from '../schema';
import type { DeliveryRow } from './webhooks';

// The delivery log as operators and merchants read it: deliveries with their attempts.

export type AttemptRow = typeof webhookAttempts.$inferSelect;

export type DeliveryWithAttempts = { delivery: DeliveryRow; eventType: string; attempts: AttemptRow[] };

/** Each delivery with its attempts, oldest attempt first: one query for all of them. */
async function withAttempts(db: DatabaseOrTransaction, deliveries: { delivery: DeliveryRow; eventType: string }[]) {
  const attempts = deliveries.length
    ? await db
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.deliveryId,
            deliveries.map((d) => d.delivery.id),
          ),
        )
        .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id))
    : [];
  return deliveries.map((d): DeliveryWithAttempts => ({ ...d, attempts: attempts.filter((a) => a.deliveryId === d.delivery.id) }));
}

export async function listDeliveriesForPayment(db: DatabaseOrTransaction, paymentId: string): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.paymentId, paymentId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  return withAttempts(db, deliveries);
}

/** A merchant's own deliveries (through their events), newest first, optionally of one status and event type. */
export async function listDeliveriesForMerchant(
  db: DatabaseOrTransaction,
  input: { merchantId: string; status?: DeliveryRow['status'] | undefined; eventType?: string | undefined; limit: number },
): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(events.merchantId, input.merchantId),
        input.status ? eq(webhookDeliveries.status, input.status) : undefined,
        input.eventType ? eq(events.type, input.eventType) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(input.limit);
  return withAttempts(db, deliveries);
}

export async function listAttempts(db: DatabaseOrTransaction, deliveryId: string): Promise<AttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId))
    .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id));
}
