import { recordLateFact, flagPaymentForReview } from '../db/queries/late-payments';
import { recordProviderEvent, setProviderEventState } from '../db/queries/provider-events';
import { AppError, notFound } from '../domain/errors';
import { providerFact, termsMismatch, type ProviderFact } from '../domain/provider-fact';
import type { PaymentContext } from './context';
import { findPaymentOwner, type PaymentOwner } from './payment-owners';
import { callTemporal, WorkflowClosedError } from './temporal-call';

export type IngestOutcome = { ok: true; duplicate?: true; late?: true };

/** A callback whose signature did not verify; the route logs the reason. */
export class CallbackRefused extends AppError {
  constructor(readonly reason: string) {
    super('Unauthorized', `The callback signature is not valid (${reason}).`);
  }
}

/**
 * The one path from a provider's callback to the payment it concerns, whatever owns it: verify the
 * signature on the raw body, find the owner by provider and reference, check the terms, record the
 * event once (the dedupe of retried callbacks), then hand the fact to the owner's workflow, or to
 * the late-money policy when the payment has ended. Any non-2xx leaves state as it was, so the
 * provider's retry is safe.
 */
export async function ingestProviderEvent(
  ctx: PaymentContext,
  providerName: string,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
): Promise<IngestOutcome> {
  const adapter = ctx.providers.get(providerName);
  if (!adapter) throw notFound('Provider');
  const verified = adapter.verifyCallback(rawBody, headers, ctx.now());
  if (!verified.ok) throw new CallbackRefused(verified.reason);
  const event = verified.event;
  const owner = await findPaymentOwner(ctx, adapter.name, event.reference);
  if (!owner) throw notFound('Payment');

  const mismatch = termsMismatch(event, owner.expectedTerms(event));
  const { row, inserted } = await recordProviderEvent(ctx.db, {
    provider: adapter.name,
    eventId: event.eventId,
    paymentId: owner.id,
    type: event.type,
    payload: event,
    state: mismatch ? 'rejected' : 'received',
    ...(mismatch ? { note: mismatch } : {}),
  });
  if (mismatch) {
    if (inserted) await flagPaymentForReview(ctx.db, owner.kind, owner.id, 'provider_mismatch', `Event ${event.eventId}: ${mismatch}`);
    throw new AppError('ValidationError', `The callback does not match the payment: ${mismatch}.`);
  }
  if (row.state !== 'received') return { ok: true, duplicate: true };

  const fact = providerFact(event);
  if (owner.ended) return lateFact(ctx, owner, adapter.name, fact);
  try {
    await callTemporal(ctx.temporal, owner.id, () => ctx.temporal.workflow.getHandle(owner.id).signal(owner.signal, fact));
  } catch (err) {
    if (!(err instanceof WorkflowClosedError)) throw err;
    // The workflow closed between our read and the signal: the payment has ended now.
    const current = (await findPaymentOwner(ctx, adapter.name, event.reference)) ?? owner;
    return lateFact(ctx, current, adapter.name, fact);
  }
  await setProviderEventState(ctx.db, { provider: adapter.name, eventId: event.eventId }, 'signaled');
  return { ok: true };
}

async function lateFact(ctx: PaymentContext, owner: PaymentOwner, provider: string, fact: ProviderFact): Promise<IngestOutcome> {
  await recordLateFact(ctx.db, {
    kind: owner.kind,
    paymentId: owner.id,
    provider,
    eventId: fact.eventId,
    // A success for a payment that was itself paid is the provider repeating itself, not new money.
    succeeded: fact.type === 'succeeded' && owner.status !== 'completed' && owner.status !== 'settled',
    status: owner.status,
    summary: `${fact.destinationAmount ?? '?'}, tx ${fact.transactionHash ?? '?'}`,
    at: ctx.now(),
  });
  return { ok: true, late: true };
}
