import type { FastifyPluginAsync } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Database } from '../../db/client';
import { findSession, flagForReview } from '../../db/queries/checkout-sessions';
import { recordLateSuccess } from '../../db/queries/late-payments';
import { recordProviderEvent, setProviderEventState } from '../../db/queries/provider-events';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError, notFound } from '../../domain/errors';
import { isCanonicalPaymentId } from '../../domain/ids';
import { formatFiat } from '../../domain/money';
import { isTerminal } from '../../domain/payment-status';
import type { ProviderRegistry } from '../../providers/registry';
import type { ProviderEvent } from '../../providers/types';
import { providerUpdateSignal, type ProviderFact } from '../../workflows/checkout-session/messages';
import { isUnavailable } from '../plugins/errors';
import { handleSimpleOrderCallback } from '../simple/callbacks';
import { isTransactionCode } from '../simple/open-order';
import { providerFact, SIGNAL_DEADLINE_MS } from '../provider-facts';

/**
 * Provider callbacks: verify the provider's signature on the raw body, dedupe by provider event id,
 * check the facts against the session, and hand them to the session's workflow as a signal. The
 * provider retries anything but 2xx, so every non-2xx here leaves state as it was.
 */
const providerCallbackRoutes: FastifyPluginAsync<{ db: Database; temporal: Client; providers: ProviderRegistry; now: () => Date }> = async (
  app,
  { db, temporal, providers, now },
) => {
  // The signature covers the exact bytes sent: keep the body as a string, parse after verifying.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post<{ Params: { provider: string } }>(
    '/providers/:provider/callbacks',
    { schema: { hide: true } },
    async (request) => {
      const adapter = providers.get(request.params.provider);
      if (!adapter) throw notFound('Provider');
      const raw = typeof request.body === 'string' ? request.body : '';
      const verified = adapter.verifyCallback(raw, request.headers, now());
      if (!verified.ok) {
        request.log.warn({ provider: adapter.name, reason: verified.reason }, 'provider callback refused');
        throw new AppError('Unauthorized', `The callback signature is not valid (${verified.reason}).`);
      }
      const event = verified.event;
      // Simple-API orders are referenced by their transaction code (a UUID).
      if (isTransactionCode(event.reference)) return handleSimpleOrderCallback({ db, temporal }, adapter.name, event);
      const session = isCanonicalPaymentId(event.reference) ? await findSession(db, event.reference) : undefined;
      if (!session || session.provider !== adapter.name) throw notFound('Payment');

      const mismatch = compareWithSession(event, session);
      const { row, inserted } = await recordProviderEvent(db, {
        provider: adapter.name,
        eventId: event.eventId,
        paymentId: session.id,
        type: event.type,
        payload: event,
        state: mismatch ? 'rejected' : 'received',
        ...(mismatch ? { note: mismatch } : {}),
      });
      if (mismatch) {
        if (inserted) await flagForReview(db, session.id, 'provider_mismatch', `Event ${event.eventId}: ${mismatch}`);
        throw new AppError('ValidationError', `The callback does not match the payment: ${mismatch}.`);
      }
      if (row.state !== 'received') return { ok: true, duplicate: true };

      const fact = providerFact(event);

      if (isTerminal(session.status)) {
        await settleLate(session.status, session.id, adapter.name, fact);
        return { ok: true, late: true };
      }
      try {
        await temporal.connection.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
          temporal.workflow.getHandle(session.id).signal(providerUpdateSignal, fact),
        );
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          // The workflow closed between our read and the signal: the session is terminal now.
          const current = await findSession(db, session.id);
          await settleLate(current?.status ?? session.status, session.id, adapter.name, fact);
          return { ok: true, late: true };
        }
        if (isUnavailable(err)) {
          throw new AppError('Unavailable', 'The payment engine is unavailable; retry the callback.');
        }
        throw err;
      }
      await setProviderEventState(db, { provider: adapter.name, eventId: event.eventId }, 'signaled');
      return { ok: true };
    },
  );

  async function settleLate(status: string, paymentId: string, provider: string, fact: ProviderFact) {
    if (fact.type === 'succeeded' && status !== 'completed') {
      await recordLateSuccess(db, {
        paymentId,
        provider,
        eventId: fact.eventId,
        status,
        summary: `${fact.destinationAmount ?? '?'}, tx ${fact.transactionHash ?? '?'}`,
        at: now(),
      });
    } else {
      await setProviderEventState(db, { provider, eventId: fact.eventId }, 'late', `session was ${status}`);
    }
  }
};

/** The provider must be paying for this session: same fiat amount and currency, asset, network and wallet. */
function compareWithSession(
  event: ProviderEvent,
  session: { amountMinor: bigint; currency: string; destinationAsset: string; network: string; walletAddress: string },
): string | null {
  const expectedAmount = isFiatCurrency(session.currency) ? formatFiat(session.amountMinor, session.currency) : null;
  if (event.sourceCurrency !== session.currency) return `currency ${event.sourceCurrency} ≠ ${session.currency}`;
  if (event.sourceAmount !== expectedAmount) return `amount ${event.sourceAmount} ≠ ${expectedAmount}`;
  if (event.destinationAsset !== session.destinationAsset || event.network !== session.network) {
    return `destination ${event.destinationAsset}/${event.network} ≠ ${session.destinationAsset}/${session.network}`;
  }
  if (event.walletAddress !== session.walletAddress) return 'wallet address differs';
  if (event.type === 'payment.succeeded' && (!event.destinationAmount || !/^\d+\.\d{6}$/.test(event.destinationAmount) || !event.transactionHash)) {
    return 'a success needs a 6-decimal destination amount and a transaction hash';
  }
  return null;
}

export default providerCallbackRoutes;
