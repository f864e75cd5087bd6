import { randomBase62 } from '../src/domain/ids';
import type { CallbackSender } from './callbacks';
import { explorerUrlFor, type Deliver } from './chain';
import { quoteDestinationAmount } from './rates';
import type { PaymentRequest } from './requests';
import type { CallbackAttempt, CallbackEvent, SandboxEventType, SandboxPayment, SandboxStore } from './store';

export type Outcome = 'succeeded' | 'declined';

export interface EmittedCallback {
  eventId: string;
  type: SandboxEventType;
  firstAttempt: Promise<CallbackAttempt>;
}

export interface OpenResult {
  kind: 'created' | 'existing' | 'conflict';
  payment: SandboxPayment;
}

/**
 * What happens to a sandbox payment: opened once per reference, confirmed once on the payment page,
 * each change announced by a signed callback.
 */
export function createPaymentLifecycle(deps: {
  store: SandboxStore;
  callbacks: CallbackSender;
  publicUrl: string;
  now: () => Date;
  deliver: Deliver;
  /** Why a charged payment's transfer did not go out (the payment then fails): for the sandbox's log. */
  onDeliveryFailed?: (payment: SandboxPayment, err: unknown) => void;
}) {
  const { store, callbacks, publicUrl, now, deliver } = deps;

  function emit(payment: SandboxPayment, type: SandboxEventType): EmittedCallback {
    const createdAt = now().toISOString();
    const id = `sbx_evt_${randomBase62(24)}`;
    // The payment's state at this moment, serialised now: later changes must not leak into it.
    const body = JSON.stringify({
      id,
      type,
      createdAt,
      data: {
        paymentId: payment.id,
        reference: payment.reference,
        status: payment.status,
        sourceAmount: payment.sourceAmount,
        sourceCurrency: payment.sourceCurrency,
        destinationAsset: payment.destinationAsset,
        network: payment.network,
        walletAddress: payment.walletAddress,
        destinationAmount: payment.destinationAmount,
        transactionHash: payment.transactionHash,
        explorerUrl: payment.explorerUrl,
        failureReason: payment.failureReason,
      },
    });
    const event: CallbackEvent = { id, type, paymentId: payment.id, createdAt, body, state: 'pending', attempts: [] };
    store.addEvent(event);
    return { eventId: id, type, firstAttempt: callbacks.send(payment.callbackUrl, event) };
  }

  function update(payment: SandboxPayment, changes: Partial<SandboxPayment>) {
    Object.assign(payment, changes, { updatedAt: now().toISOString() });
  }

  return {
    /**
     * The merchant platform closes a payment its customer can no longer pay for. Only a
     * payment still waiting for the customer closes; one already charged answers with its status, as
     * the money is on its way and the platform must treat it as arrived.
     */
    cancel(payment: SandboxPayment): { closed: boolean } {
      if (payment.status === 'canceled') return { closed: true };
      if (payment.status !== 'requires_action') return { closed: false };
      update(payment, { status: 'canceled' });
      return { closed: true };
    },

    /** Idempotent per reference; the same reference with other money terms is a conflict. */
    open(request: PaymentRequest): OpenResult {
      const existing = store.paymentByReference(request.reference);
      if (existing) {
        const same =
          existing.sourceAmount === request.sourceAmount &&
          existing.sourceCurrency === request.sourceCurrency &&
          existing.destinationAsset === request.destinationAsset &&
          existing.network === request.network &&
          existing.walletAddress === request.walletAddress;
        // The platform asks again for a payment it closed (a simple order's customer came back to this
        // rail): it may be paid again, as the platform's own state says it is wanted.
        if (same && existing.status === 'canceled') update(existing, { status: 'requires_action' });
        // A declined card took no money: asked again, the same payment takes a new attempt (as a
        // card processor's payment intent does after a decline); its callbacks are new events.
        if (same && existing.status === 'failed' && existing.failureReason === 'card_declined')
          update(existing, { status: 'requires_action', failureReason: undefined });
        return { kind: same ? 'existing' : 'conflict', payment: existing };
      }
      const at = now().toISOString();
      const payment: SandboxPayment = {
        id: `sbx_pay_${randomBase62(24)}`,
        ...request,
        status: 'requires_action',
        quote: quoteDestinationAmount(request.sourceAmount, request.sourceCurrency),
        createdAt: at,
        updatedAt: at,
      };
      store.addPayment(payment);
      return { kind: 'created', payment };
    },

    /**
     * The customer's answer on the payment page. Only a payment still waiting for it changes;
     * a second confirmation returns no callbacks. Its status changes before the delivery is awaited,
     * so a confirmation racing it finds the payment no longer waiting.
     */
    async confirm(payment: SandboxPayment, outcome: Outcome): Promise<EmittedCallback[]> {
      if (payment.status !== 'requires_action') return [];
      if (outcome === 'declined') {
        update(payment, { status: 'failed', failureReason: 'card_declined' });
        return [emit(payment, 'payment.failed')];
      }
      update(payment, { status: 'processing' });
      const processing = emit(payment, 'payment.processing');
      // The card was charged; the stablecoin goes out on chain at once.
      let hash: string;
      try {
        hash = await deliver({
          network: payment.network,
          asset: payment.destinationAsset,
          to: payment.walletAddress,
          amount: payment.quote.destinationAmount,
        });
      } catch (err) {
        deps.onDeliveryFailed?.(payment, err);
        // Never a success without its transfer: the service would wait for proof that cannot come.
        update(payment, { status: 'failed', failureReason: 'delivery_failed' });
        return [processing, emit(payment, 'payment.failed')];
      }
      update(payment, {
        status: 'succeeded',
        destinationAmount: payment.quote.destinationAmount,
        transactionHash: hash,
        explorerUrl: explorerUrlFor(publicUrl, hash),
      });
      store.addTransfer({
        hash,
        network: payment.network,
        asset: payment.destinationAsset,
        amount: payment.quote.destinationAmount,
        to: payment.walletAddress,
        paymentId: payment.id,
        confirmedAt: payment.updatedAt,
      });
      return [processing, emit(payment, 'payment.succeeded')];
    },
  };
}

export type PaymentLifecycle = ReturnType<typeof createPaymentLifecycle>;
