import { findSession, findSessionWithMerchant, setProviderPaymentId, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { isTerminal } from '../domain/payment-status';
import { AppError, notFound } from '../domain/errors';
import { isCanonicalPaymentId } from '../domain/ids';
import { cancelUpdate, expireUpdate } from '../workflows/checkout-session/messages';
import type { PaymentContext } from './context';
import { fixExpectedGross } from './deposits';
import { ensurePaymentsEnabled } from './kill-switch';
import { claimLink, releaseLinkClaim } from './link-tabs';
import { ensureStandingTakesMoney, standingOfRow } from './session-standing';
import { closeSessionPayment, createSessionPayment } from './provider-payments';
import { callTemporal, WorkflowClosedError } from './temporal-call';

// What a customer does on the hosted checkout page (pay, cancel) and the merchant's expire.

export async function findCheckoutSession(ctx: PaymentContext, id: string): Promise<CheckoutSessionRow | undefined> {
  return isCanonicalPaymentId(id) ? findSession(ctx.db, id) : undefined;
}

const payable = (session: CheckoutSessionRow) => session.mode !== 'test' && session.status === 'pending';

/**
 * Pay: the provider payment for this session (idempotent per session id at the provider), its id
 * kept on the row, and where to send the customer. Postgres says whether the session may still be
 * paid; no workflow task is waited for, so the answer comes within the provider's bound whatever
 * the workers do. The workflow learns of the payment from the provider's callbacks.
 */
export async function startCheckoutPayment(ctx: PaymentContext, id: string): Promise<{ redirectUrl: string }> {
  // The session with its merchant's standing and its link's payer: one read.
  const session = isCanonicalPaymentId(id) ? await findSessionWithMerchant(ctx.db, id) : undefined;
  if (!session) throw notFound('Checkout session');
  if (!payable(session)) throw new AppError('Conflict', 'This checkout can no longer be paid.');
  ensureStandingTakesMoney(standingOfRow(session));
  await ensurePaymentsEnabled(ctx.db);
  // A link's session takes money only while no other session of the link does (link-tabs.ts).
  const claim = session.paymentLinkId ? await claimLink(ctx, session.paymentLinkId, session.id, 'provider') : null;
  let payment: Awaited<ReturnType<typeof createSessionPayment>>;
  try {
    // G is the quote at the moment the customer pressed Pay: the amount the provider is asked to
    // deliver (the first G fixed stands). Stored before the provider is asked: a process that dies
    // once the provider answered leaves a payment the customer may still pay, and its transfer
    // must find the G it proves.
    await fixExpectedGross(ctx, session);
    payment = await createSessionPayment(ctx, session);
  } catch (err) {
    await releaseLinkClaim(ctx, claim);
    throw err;
  }
  // The session may have ended while the provider answered. Its workflow closes the
  // provider payment it finds on the row after ending; the status this write returns (the row as the
  // write left it) covers the payment written after that, so one of the two always closes it.
  const now = await setProviderPaymentId(ctx.db, session.id, payment.providerPaymentId);
  if (now && isTerminal(now.status)) {
    await closeSessionPayment(ctx, now.provider, payment.providerPaymentId);
    throw new AppError('Conflict', 'This checkout can no longer be paid.');
  }
  return { redirectUrl: payment.redirectUrl };
}

/** Cancel, decided by the session's workflow (a provider fact may win the race); answers the status it ended in. */
export async function cancelCheckoutSession(ctx: PaymentContext, id: string): Promise<{ status: string; session: CheckoutSessionRow }> {
  const session = await findCheckoutSession(ctx, id);
  if (!session) throw notFound('Checkout session');
  if (!payable(session)) throw new AppError('Conflict', 'This checkout can no longer be canceled.');
  try {
    const status = await callTemporal(
      ctx.temporal,
      id,
      () => ctx.temporal.workflow.getHandle(id).executeUpdate(cancelUpdate, { args: [{ reason: 'customer' }] }),
      'This checkout can no longer be canceled.',
    );
    return { status, session };
  } catch (err) {
    if (err instanceof WorkflowClosedError) throw new AppError('Conflict', 'This checkout can no longer be canceled.');
    throw err;
  }
}

const notExpirable = (status: string) => new AppError('Conflict', `This checkout session is ${status} and can no longer be expired.`);

/**
 * The merchant's expire (as Stripe's): a pending session becomes `expired` now, through its
 * workflow, which fires `payment.expired`. Repeating it answers the expired session again, nothing
 * twice; any other status is a Conflict. Another merchant's session is 404, never 403.
 */
export async function expireCheckoutSession(ctx: PaymentContext, merchantId: string, id: string): Promise<CheckoutSessionRow> {
  const session = await findCheckoutSession(ctx, id);
  if (!session || session.merchantId !== merchantId) throw notFound('Checkout session');
  if (session.status === 'expired') return session;
  if (session.status !== 'pending') throw notExpirable(session.status);
  let unreached = false;
  try {
    await callTemporal(
      ctx.temporal,
      id,
      () => ctx.temporal.workflow.getHandle(id).executeUpdate(expireUpdate),
      'This checkout session can no longer be expired.',
    );
  } catch (err) {
    // The workflow ended or moved on first (a provider fact, the expiry timer): Postgres says how.
    if (!(err instanceof WorkflowClosedError) && !(err instanceof AppError && err.code === 'Conflict')) throw err;
    unreached = err instanceof WorkflowClosedError;
  }
  // The workflow writes the row before it answers, so the row is the outcome.
  const fresh = await findCheckoutSession(ctx, id);
  if (fresh?.status === 'expired') return fresh;
  // A pending row without its run yet (the sweep starts it): nothing changed, a retry can succeed.
  if (unreached && fresh?.status === 'pending')
    throw new AppError(
      'Unavailable',
      'The checkout session is not ready to be expired yet; nothing was changed. Please retry in a moment.',
    );
  throw notExpirable(fresh?.status ?? session.status);
}
