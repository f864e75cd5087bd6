import { and, asc, eq, isNull } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { merchants, webhookEndpoints } from '../schema';

// Where a merchant's webhooks go and what signs them: its endpoints, each with its own secret, and the
// merchant's default secret for a payment's own webhook URL.

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export async function insertEndpoint(db: DatabaseOrTransaction, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [inserted] = await db.insert(webhookEndpoints).values(row).returning();
  return inserted!;
}

export async function listEnabledEndpoints(db: DatabaseOrTransaction, merchantId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.enabled, true)))
    .orderBy(asc(webhookEndpoints.createdAt));
}

/** Every endpoint of a merchant, enabled or not, oldest first (the operators' listing). */
export async function listEndpoints(db: DatabaseOrTransaction, merchantId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.merchantId, merchantId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** Scoped by merchant too, so an endpoint id of another merchant matches nothing. */
export async function setEndpointEnabled(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string; enabled: boolean },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ enabled: input.enabled })
    .where(and(eq(webhookEndpoints.id, input.endpointId), eq(webhookEndpoints.merchantId, input.merchantId)))
    .returning();
  return row;
}

/**
 * Removes the endpoint and its secret. Deliveries already logged keep their URL and attempts; one
 * still being retried to it stops at its next attempt, since its secret is gone.
 */
export async function deleteEndpoint(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, input.endpointId), eq(webhookEndpoints.merchantId, input.merchantId)))
    .returning();
  return row;
}

/** The merchant's default webhook secret, created once on first use (the first writer wins). */
export async function merchantWebhookSecret(db: DatabaseOrTransaction, merchantId: string, create: () => string): Promise<string | null> {
  // Made once per merchant: every later attempt reads it (one statement, no secret made and thrown away).
  const [known] = await db.select({ sealed: merchants.webhookSecretEncrypted }).from(merchants).where(eq(merchants.id, merchantId));
  if (!known || known.sealed) return known?.sealed ?? null;
  await db
    .update(merchants)
    .set({ webhookSecretEncrypted: create() })
    .where(and(eq(merchants.id, merchantId), isNull(merchants.webhookSecretEncrypted)));
  const [row] = await db.select({ sealed: merchants.webhookSecretEncrypted }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.sealed ?? null;
}

/** A new signing secret for the merchant's endpoint; the next attempt of any delivery signs with it. */
export async function setEndpointSecret(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string; secretEncrypted: string },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ secretEncrypted: input.secretEncrypted })
    .where(and(eq(webhookEndpoints.id, input.endpointId), eq(webhookEndpoints.merchantId, input.merchantId)))
    .returning();
  return row;
}
