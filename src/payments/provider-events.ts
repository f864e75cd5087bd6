import { markFactLate, recordLateFact } from '../db/queries/late-payments';
import { recordProviderEvent, recordSignaledEvent, type ProviderEventRecord } from '../db/queries/provider-events';
import { AppError, notFound } from '../domain/errors';
import { providerFact, termsMismatch, type ProviderFact } from '../domain/provider-fact';
import type { PaymentContext } from './context';
import { recordException } from './exception-runs';
import { findPaymentOwner, type PaymentOwner } from './payment-owners';
import { callTemporal, WorkflowClosedError } from './temporal-call';

export type IngestOutcome = { ok: true; duplicate?: true; late?: true };

/** A callback whose signature did not verify; the route logs the reason. */
export class CallbackRefused extends AppError {
  constructor(readonly reason: string) {
    super('Unauthorized', `The callback signature is not valid (${reason}).`);
  }
}

/** A signed callback whose terms are not the payment's; the route logs the reason, as nothing else records it. */
export class CallbackTermsMismatch extends AppError {
  constructor(readonly reason: string) {
    super('ValidationError', `The callback does not match the payment: ${reason}.`);
  }
}

/**
 * The one path from a provider's callback to the payment it concerns, whatever owns it: verify the
 * signature on the raw body, find the owner by provider and reference, check the terms, then hand
 * the fact to the owner's workflow and record the event, or to the late-money policy when the
 * payment has ended. A repeated event answers `duplicate`. A refusal (401, 404, 422) writes nothing;
 * any other non-2xx leaves the event unrecorded or `received`, so the provider's retry is safe.
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

  // Every refusal comes before anything is written: a refused callback records no event, no
  // exception and signals nothing (its provider retries, and is refused the same). A success for
  // other terms is a provider's word, not money: money that does reach the deposit address is seen
  // on chain and has its own record there.
  const mismatch = termsMismatch(event, owner.expectedTerms(event));
  if (mismatch) throw new CallbackTermsMismatch(mismatch);

  const record = { provider: adapter.name, eventId: event.eventId, paymentId: owner.id, type: event.type, payload: event };
  const fact = providerFact(event);
  if (owner.ended) return lateFact(ctx, owner, record, fact);
  // Signalled first, then recorded `signaled` in one write: a crash between the two leaves nothing
  // recorded and the provider's retry signals again, which the workflow drops as a fact it has seen.
  try {
    await callTemporal(ctx.temporal, owner.id, () => ctx.temporal.workflow.getHandle(owner.id).signal(owner.signal, fact));
  } catch (err) {
    if (!(err instanceof WorkflowClosedError)) throw err;
    // The workflow closed between our read and the signal: the payment has ended now.
    const current = (await findPaymentOwner(ctx, adapter.name, event.reference)) ?? owner;
    return lateFact(ctx, current, record, fact);
  }
  return (await recordSignaledEvent(ctx.db, record)) ? { ok: true } : { ok: true, duplicate: true };
}

/**
 * A fact for a payment whose run has ended: a success is a `late` exception, or a
 * `duplicate` when another provider payment already paid it (a second rail or tab); the
 * exception's own workflow tells the merchant. The provider event is marked late last, so a crash
 * before that leaves it `received` and the provider's retry records (idempotently) again.
 */
async function lateFact(ctx: PaymentContext, owner: PaymentOwner, record: ProviderEventRecord, fact: ProviderFact): Promise<IngestOutcome> {
  const { row } = await recordProviderEvent(ctx.db, { ...record, state: 'received' });
  if (row.state !== 'received') return { ok: true, duplicate: true };
  const provider = record.provider;
  const runs = { temporal: ctx.temporal, taskQueue: ctx.config.temporal.taskQueue };
  // A simple order has no merchant account to tell (activities/exceptions.ts): this path records its
  // exception for the operator and starts a run only for a checkout session's, as it always has.
  const startRun = owner.kind === 'checkout_session';
  const lateMoney = () =>
    recordLateFact(
      ctx.db,
      {
        kind: owner.kind,
        id: owner.id,
        provider,
        network: owner.network,
        status: owner.status,
        paid: owner.status === 'completed' || owner.status === 'settled',
        paidBy: owner.providerPaymentId,
        linkPaidElsewhere: owner.linkPaidElsewhere,
        verification: owner.verification,
      },
      fact,
      ctx.now(),
      { markLate: false },
    );
  await recordException(runs, owner.id, lateMoney, { startRun });
  await markFactLate(ctx.db, { provider, eventId: fact.eventId, status: owner.status });
  return { ok: true, late: true };
}
