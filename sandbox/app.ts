import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { constantTimeEqual } from '../src/domain/credentials';
import { callbackTargetRefusal, createCallbackSender, DEFAULT_RETRY_DELAYS_MS } from './callbacks';
import type { ChainEndpoint } from '../src/chains/clients';
import { createSandboxChains } from './chain';
import { createDeposits, depositRequest, type SandboxDeposit } from './deposits';
import { createFaucet, faucetRequest, FaucetUnavailable } from './faucet';
import { createPaymentLifecycle, type Outcome } from './lifecycle';
import { createChainExplorer } from './explorer';
import { explorerPage, notFoundPage, paymentPage, receiptPage } from './pages';
import { quoteDestinationAmount, sandboxServesCountry } from './rates';
import { PAYMENT_ID, paymentRequest, quoteQuery, REFERENCE, sendError, sendInvalid, testPayRequest } from './requests';
import { createSandboxStore, type SandboxPayment } from './store';

const START_TIMEOUT_MS = 45_000;

export interface SandboxOptions {
  apiKey: string;
  callbackSecret: string;
  /** Where customers' browsers reach the sandbox (its checkout page and explorer links). */
  publicUrl: string;
  /** How the sandbox reaches our service: callbacks are posted here, and the test helper presses Pay here. */
  serviceUrl: string;
  /**
   * The service's public base URL, which callback URLs are written on (default: serviceUrl). A
   * callback for it is posted to serviceUrl instead, so inside compose it never leaves the network.
   */
  servicePublicUrl?: string;
  now?: () => Date;
  fetch?: typeof fetch;
  retryDelaysMs?: readonly number[];
  /** pino options (the service's format, src/logging.ts), or false for none. */
  logger?: boolean | object;
  /** The EVM networks the faucet mints on (the service's own chain config); none: the faucet refuses. */
  chains?: readonly ChainEndpoint[];
  /** How often open deposit addresses are read for arrived money (default 1000 ms). */
  depositWatchMs?: number;
}

/**
 * The sandbox provider: a separate app, as a real on-ramp is, with an API for the merchant platform,
 * its own payment page and explorer, signed callbacks, and a test helper that acts as a customer.
 */
export function buildSandboxApp(options: SandboxOptions): FastifyInstance {
  const now = options.now ?? (() => new Date());
  const http = options.fetch ?? fetch;
  const app = Fastify({ logger: options.logger ?? false });
  const store = createSandboxStore();
  const serviceOrigin = new URL(options.servicePublicUrl ?? options.serviceUrl).origin;
  const internalOrigin = new URL(options.serviceUrl).origin;
  const callbacks = createCallbackSender({
    secret: options.callbackSecret,
    allowedOrigin: serviceOrigin,
    // Checked against the public origin first (callbackTargetRefusal), then sent to the internal one.
    fetch: (url, init) => {
      const target = new URL(url instanceof Request ? url.url : url);
      return http(internalOrigin + target.pathname + target.search, init);
    },
    now,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    onFailedAttempt: (event, attempt) => app.log.warn({ eventId: event.id, attempt }, 'callback attempt failed'),
  });
  const { deliver, holdings } = createSandboxChains(options.chains ?? []);
  const explorer = createChainExplorer(options.chains ?? []);
  const lifecycle = createPaymentLifecycle({
    store,
    callbacks,
    publicUrl: options.publicUrl,
    now,
    deliver,
    onDeliveryFailed: (payment, err) => app.log.error({ paymentId: payment.id, err }, 'delivery on chain failed: the payment fails'),
  });
  const deposits = createDeposits({ store, callbacks, publicUrl: options.publicUrl, now, deliver, holdings });
  // Money sent to a deposit address on a chain the sandbox has is seen within a second, as a real
  // on-ramp's watcher would see it, and forwarded; one pass at a time.
  let watching = false;
  const depositWatch = setInterval(() => {
    if (watching) return;
    watching = true;
    void deposits
      .funded()
      .then((funded) => Promise.all(funded.map((d) => deposits.pay(d, 'succeeded'))))
      .catch((err: unknown) => app.log.warn({ err }, 'reading deposit addresses failed'))
      .finally(() => (watching = false));
  }, options.depositWatchMs ?? 1000);
  depositWatch.unref();
  app.addHook('onClose', async () => {
    clearInterval(depositWatch);
    await callbacks.stop();
  });

  // Its payment page posts a plain form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const authorized = (header: string | undefined) => {
    const match = /^Bearer (\S+)$/.exec(header ?? '');
    return match !== null && constantTimeEqual(match[1]!, options.apiKey);
  };

  const view = (p: SandboxPayment) => ({
    id: p.id,
    reference: p.reference,
    status: p.status,
    checkoutUrl: `${options.publicUrl}/checkout/${p.id}`,
    sourceAmount: p.sourceAmount,
    sourceCurrency: p.sourceCurrency,
    destinationAsset: p.destinationAsset,
    network: p.network,
    walletAddress: p.walletAddress,
    quote: p.quote,
    destinationAmount: p.destinationAmount ?? null,
    transactionHash: p.transactionHash ?? null,
    explorerUrl: p.explorerUrl ?? null,
    failureReason: p.failureReason ?? null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  });
  const depositView = (d: SandboxDeposit) => ({
    id: d.id,
    reference: d.reference,
    address: d.address,
    asset: d.asset,
    network: d.network,
    amount: d.amount,
    status: d.status,
    expiresAt: d.expiresAt,
  });

  async function confirm(payment: SandboxPayment, outcome: Outcome) {
    const emitted = await lifecycle.confirm(payment, outcome);
    return Promise.all(
      emitted.map(async (e) => {
        const first = await e.firstAttempt;
        return { eventId: e.eventId, type: e.type, delivered: first.ok, statusCode: first.statusCode };
      }),
    );
  }

  // --- API for the merchant platform ------------------------------------------------------------

  app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      if (!authorized(request.headers.authorization)) return sendError(reply, 401, 'unauthorized', 'A valid sandbox API key is required.');
    });

    api.post('/v1/payments', async (request, reply) => {
      const parsed = paymentRequest.safeParse(request.body);
      if (!parsed.success) return sendInvalid(reply, parsed.error.issues);
      const refusal = callbackTargetRefusal(parsed.data.callbackUrl, serviceOrigin);
      if (refusal) return sendError(reply, 422, 'callback_not_allowed', refusal);
      if (!sandboxServesCountry(parsed.data.countryCode)) {
        return sendError(reply, 422, 'country_not_supported', `The sandbox does not serve ${parsed.data.countryCode}.`);
      }
      const opened = lifecycle.open(parsed.data);
      if (opened.kind === 'conflict') {
        return sendError(reply, 409, 'reference_conflict', 'This reference was used for a payment with other terms.');
      }
      return reply.status(opened.kind === 'created' ? 201 : 200).send(view(opened.payment));
    });

    api.get<{ Params: { id: string } }>('/v1/payments/:id', async (request, reply) => {
      const payment = PAYMENT_ID.test(request.params.id) ? store.payment(request.params.id) : undefined;
      if (!payment) return sendError(reply, 404, 'not_found', 'No such payment.');
      return view(payment);
    });

    // Crypto rails (simple API): a deposit address per reference, forwarded to the customer's wallet.
    api.post('/v1/deposits', async (request, reply) => {
      const parsed = depositRequest.safeParse(request.body);
      if (!parsed.success) return sendInvalid(reply, parsed.error.issues);
      const refusal = callbackTargetRefusal(parsed.data.callbackUrl, serviceOrigin);
      if (refusal) return sendError(reply, 422, 'callback_not_allowed', refusal);
      const opened = deposits.open(parsed.data);
      if (opened.kind === 'conflict')
        return sendError(reply, 409, 'reference_conflict', 'This reference has a funded deposit with other terms.');
      return reply.status(opened.kind === 'created' ? 201 : 200).send(depositView(opened.deposit));
    });

    // The merchant platform closes a deposit the customer abandoned for another rail; idempotent, 409 once funded.
    api.post<{ Params: { id: string } }>('/v1/deposits/:id/cancel', async (request, reply) => {
      const d = deposits.byId(request.params.id);
      if (!d) return sendError(reply, 404, 'not_found', 'No such deposit.');
      if (!deposits.cancel(d).closed)
        return sendError(reply, 409, 'payment_not_cancelable', `The deposit is already ${d.status}.`, { status: d.status });
      return depositView(d);
    });

    // The merchant platform closes a payment whose session ended; idempotent, 409 once it was charged.
    api.post<{ Params: { id: string } }>('/v1/payments/:id/cancel', async (request, reply) => {
      const payment = PAYMENT_ID.test(request.params.id) ? store.payment(request.params.id) : undefined;
      if (!payment) return sendError(reply, 404, 'not_found', 'No such payment.');
      if (!lifecycle.cancel(payment).closed)
        return sendError(reply, 409, 'payment_not_cancelable', `The payment is already ${payment.status}.`, { status: payment.status });
      return view(payment);
    });

    api.get('/v1/quote', async (request, reply) => {
      const parsed = quoteQuery.safeParse(request.query);
      if (!parsed.success) return sendInvalid(reply, parsed.error.issues);
      const { sourceAmount, sourceCurrency } = parsed.data;
      return quoteDestinationAmount(sourceAmount, sourceCurrency);
    });
  });

  // --- Pages for the customer -------------------------------------------------------------------

  const page = (reply: FastifyReply, status: number, body: string) =>
    reply
      .status(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      // Its pages carry their own inline style and post forms only to themselves.
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'",
      )
      .header('x-frame-options', 'DENY')
      .send(body);

  app.get<{ Params: { id: string } }>('/checkout/:id', async (request, reply) => {
    const payment = PAYMENT_ID.test(request.params.id) ? store.payment(request.params.id) : undefined;
    if (!payment) return page(reply, 404, notFoundPage('Payment'));
    return page(reply, 200, paymentPage(payment));
  });

  app.post<{ Params: { id: string }; Body: { outcome?: string } }>('/checkout/:id/confirm', async (request, reply) => {
    const payment = PAYMENT_ID.test(request.params.id) ? store.payment(request.params.id) : undefined;
    if (!payment) return page(reply, 404, notFoundPage('Payment'));
    const outcome = request.body?.outcome;
    if (outcome !== 'succeeded' && outcome !== 'declined') return page(reply, 400, notFoundPage('Outcome'));
    // A closed payment is refused here too, so a page opened before the close cannot charge the customer.
    if (payment.status === 'canceled') return page(reply, 409, paymentPage(payment));
    // The customer is sent back at once; the callbacks go out behind them, as with a real provider.
    void confirm(payment, outcome);
    return reply.redirect(payment.returnUrl, 303);
  });

  app.get<{ Params: { hash: string } }>('/explorer/tx/:hash', async (request, reply) => {
    const transfer = store.transfer(request.params.hash);
    if (transfer) return page(reply, 200, explorerPage(transfer));
    // Any other transaction of the local chain (a payout, a wallet payment): its receipt, read now.
    const receipt = await explorer.lookup(request.params.hash);
    if (!receipt) return page(reply, 404, notFoundPage('Transaction'));
    return page(reply, 200, receiptPage(receipt));
  });

  // --- Test helpers -----------------------------------------------------------------------------

  app.post('/test-helpers/pay', async (request, reply) => {
    const parsed = testPayRequest.safeParse(request.body);
    if (!parsed.success) return sendInvalid(reply, parsed.error.issues);
    const { reference, outcome, depositId } = parsed.data;
    let payment = store.paymentByReference(reference);
    // A reference whose latest choice is a crypto deposit (or the deposit named): the customer sends the crypto.
    const deposit = depositId ? deposits.byId(depositId) : deposits.byReference(reference);
    if (depositId && deposit?.reference !== reference) return sendError(reply, 404, 'not_found', 'No such deposit for this reference.');
    if (deposit && (depositId || !payment || deposit.createdAt >= payment.createdAt)) {
      if (deposit.status === 'canceled')
        return sendError(
          reply,
          409,
          'payment_closed',
          'This deposit address was closed: the customer chose another way to pay. Nothing was sent.',
        );
      if (deposit.status !== 'awaiting_funds')
        return sendError(reply, 409, 'payment_not_payable', `The deposit is already ${deposit.status}.`);
      const emitted = await Promise.all(
        (await deposits.pay(deposit, outcome)).map(async (e) => {
          const first = await e.firstAttempt;
          return { eventId: e.eventId, type: e.type, delivered: first.ok, statusCode: first.statusCode };
        }),
      );
      return { ok: true, depositId: deposit.id, status: deposit.status, callbacks: emitted };
    }
    // Declined before: the customer presses Pay again on the platform's page, which asks for the payment again.
    const declined = payment?.status === 'failed' && payment.failureReason === 'card_declined';
    if (!payment || declined) {
      // What the customer does first: press Pay on the merchant platform's hosted page, which
      // creates our payment and sends them to our checkout page.
      let res: Response;
      try {
        res = await http(`${options.serviceUrl}/pay/${encodeURIComponent(reference)}/start`, {
          method: 'POST',
          redirect: 'manual',
          // Longer than the service's own wait for its workflow, so its answer is the one we pass on.
          signal: AbortSignal.timeout(START_TIMEOUT_MS),
        });
      } catch (err) {
        return sendError(
          reply,
          502,
          'service_unreachable',
          `The service at ${options.serviceUrl} did not answer: ${(err as Error).message}`,
        );
      }
      const location = res.headers.get('location') ?? '';
      const id = /\/checkout\/(sbx_pay_[A-Za-z0-9]{24})$/.exec(location)?.[1];
      payment = id ? store.payment(id) : undefined;
      if (res.status !== 303 || !payment) {
        const status = res.status >= 400 && res.status < 500 ? res.status : 502;
        return sendError(reply, status, 'service_refused', `The service's Pay button answered ${res.status}.`, {
          serviceStatus: res.status,
          serviceBody: (await res.text()).slice(0, 2000),
        });
      }
    }
    if (payment.status === 'canceled') {
      return sendError(reply, 409, 'payment_closed', 'The merchant closed this payment (its checkout ended); it can no longer be paid.');
    }
    if (payment.status !== 'requires_action') {
      return sendError(reply, 409, 'payment_not_payable', `The payment is already ${payment.status}.`);
    }
    const sent = await confirm(payment, outcome);
    return { ok: true, paymentId: payment.id, status: payment.status, callbacks: sent };
  });

  const faucet = createFaucet(options.chains ?? []);
  app.post('/test-helpers/faucet', async (request, reply) => {
    const parsed = faucetRequest.safeParse(request.body);
    if (!parsed.success) return sendInvalid(reply, parsed.error.issues);
    try {
      return { ok: true, ...(await faucet.mint(parsed.data)) };
    } catch (err) {
      if (err instanceof FaucetUnavailable) return sendError(reply, 422, 'network_not_configured', err.message);
      request.log.error({ err }, 'faucet mint failed');
      return sendError(reply, 502, 'chain_unavailable', 'The chain did not accept the mint.');
    }
  });

  app.get<{ Params: { reference: string } }>('/test-helpers/payments/:reference', async (request, reply) => {
    const payment = REFERENCE.test(request.params.reference) ? store.paymentByReference(request.params.reference) : undefined;
    const deposit = REFERENCE.test(request.params.reference) ? deposits.byReference(request.params.reference) : undefined;
    if (!payment && !deposit) return sendError(reply, 404, 'not_found', 'No payment for this reference.');
    return {
      ok: true,
      payment: payment ? view(payment) : null,
      events: payment ? store.events(payment.id) : [],
      deposit: deposit ? depositView(deposit) : null,
    };
  });

  return app;
}
