import { createHash } from 'node:crypto';
import { Client, Connection, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import Fastify from 'fastify';
import postgres from 'postgres';
import { checkoutSessionView } from '../../src/api/checkout/views';
import { createCheckoutSessionBody } from '../../src/api/routes/checkout-sessions';
import { depositSalt, forwarderAddress } from '../../src/chains/sweeper';
import { loadConfig } from '../../src/config';
import type { CheckoutSessionRow } from '../../src/db/queries/checkout-sessions';
import type { ErrorDetail } from '../../src/domain/errors';
import { newPaymentId } from '../../src/domain/ids';
import { RAIL_FIAT_TO_CRYPTO } from '../../src/domain/payment-labels';
import { parseFiat } from '../../src/payments/amounts';
import { CHECKOUT_SESSION_WORKFLOW, type CheckoutSessionInput } from '../../src/workflows/checkout-session/messages';
import { MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey } from '../../src/workflows/search-attributes';

// The creation baseline: a bare Fastify + postgres.js + Temporal client process doing what a
// creation must, and nothing else: the key joined to its merchant by its hash on every request (no
// cache), the body checked with the API's own zod schema and amount rules, the workflow started
// with the same type, input, id policies and search attributes, then the row inserted with its
// settlement wallet's address read by the insert and, for a chain-verified session, its deposit
// address (the next index of the same sequence, the network sweeper's forwarder for it, its own row).
// No hooks, no logging, no idempotency, no request log, no response schema; the bench's stack
// has one provider (the sandbox), so there is no routing to do.
const config = loadConfig(process.env);
const taskQueue = process.env.BENCH_TASK_QUEUE!;
const sql = postgres(process.env.DATABASE_URL!, {
  max: 10,
  onnotice: () => {},
  transform: postgres.camel,
  types: { bigint: postgres.BigInt },
});
const app = Fastify({ logger: false });
let temporal: Client;

const fail = (error: string, details?: unknown) => ({ ok: false, error, ...(details ? { details } : {}) });

app.post('/api/v1/checkout/sessions', async (request, reply) => {
  const match = /^Bearer ([^\s]+)$/.exec(request.headers.authorization ?? '');
  if (!match) return reply.status(401).send(fail('Unauthorized'));
  const hash = createHash('sha256').update(match[1]!).digest('hex');
  const [key] = await sql<
    { scopes: string[]; revokedAt: Date | null; expiresAt: Date | null; mId: string; mStatus: string; mCommissionBps: number }[]
  >`
    select k.scopes, k.revoked_at, k.expires_at, m.id as m_id, m.status as m_status, m.commission_bps as m_commission_bps
    from api_keys k inner join merchants m on m.id = k.merchant_id where k.key_hash = ${hash}`;
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= new Date())) return reply.status(401).send(fail('Unauthorized'));
  if (key.mStatus !== 'approved') return reply.status(403).send(fail('AccountNotApproved'));
  if (!key.scopes.includes('checkout_sessions:create')) return reply.status(403).send(fail('InsufficientScope'));

  const parsed = createCheckoutSessionBody.safeParse(request.body);
  if (!parsed.success) return reply.status(422).send(fail('ValidationError', parsed.error.issues));
  const body = parsed.data;
  const details: ErrorDetail[] = [];
  const fiat = parseFiat(config.checkout, body.amount, body.currency, details);
  if (!fiat) return reply.status(422).send(fail('ValidationError', details));
  const asset = (body.destinationAsset ?? 'USDC').toUpperCase();
  const network = (body.network ?? 'polygon').toLowerCase();
  const chain = config.chains.networks.find((n) => n.network === network);
  const verification = chain && config.chains.settlementMnemonic && chain.tokens[asset as keyof typeof chain.tokens] ? 'chain' : 'provider';

  const id = newPaymentId();
  const expiresAt = new Date(Date.now() + config.checkout.sessionTtlSeconds * 1000);
  const orderRef = body.orderId ?? body.merchantOrderId;
  const input: CheckoutSessionInput = {
    paymentId: id,
    merchantId: key.mId,
    provider: 'sandbox',
    expiresAt: expiresAt.toISOString(),
    verification,
    providerProofTimeoutMs: config.chains.providerProofTimeoutSeconds * 1000,
  };
  await temporal.workflow.start(CHECKOUT_SESSION_WORKFLOW, {
    workflowId: id,
    taskQueue,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    typedSearchAttributes: [
      { key: MerchantIdKey, value: key.mId },
      { key: PaymentStatusKey, value: 'pending' },
      { key: ProviderKey, value: 'sandbox' },
      ...(orderRef ? [{ key: OrderIdKey, value: orderRef }] : []),
    ],
  });
  let deposit: { index: number; address: string } | null = null;
  if (verification === 'chain') {
    const [next] = await sql<{ index: string }[]>`select nextval('deposit_address_index') as index`;
    const index = Number(next!.index);
    deposit = { index, address: forwarderAddress(chain!.sweeper, depositSalt(BigInt(index))) };
  }
  const [row] = await sql<CheckoutSessionRow[]>`
    with deposit as (
      insert into deposit_addresses (derivation_index, address, network, payment_reference)
      select ${deposit?.index ?? null}::int, ${deposit?.address ?? null}, ${network}, ${id} where ${deposit !== null}
      returning address
    )
    insert into checkout_sessions (id, merchant_id, source, amount_minor, currency, country_code, destination_asset, network,
      verification, commission_bps, provider, rail_type, customer_email, order_id, merchant_order_id, success_url, cancel_url,
      locale, webhook_url, metadata, expires_at, wallet_address, deposit_address)
    values (${id}, ${key.mId}, 'api', ${fiat.minor.toString()}, ${fiat.currency}, ${body.countryCode.toUpperCase()}, ${asset}, ${network},
      ${verification}, ${key.mCommissionBps}, 'sandbox', ${RAIL_FIAT_TO_CRYPTO}, ${body.customerEmail ?? null}, ${body.orderId ?? null},
      ${body.merchantOrderId ?? null}, ${body.successUrl ?? null}, ${body.cancelUrl ?? null}, ${body.locale ?? null},
      ${body.webhookUrl ?? null}, ${sql.json(body.metadata ?? {})}, ${expiresAt},
      (select address from merchant_wallets where merchant_id = ${key.mId} and asset = ${asset} and network = ${network}),
      (select address from deposit))
    returning *`;
  return reply.status(201).send({ ok: true, checkoutSession: checkoutSessionView(row!, config.http.publicBaseUrl) });
});

app.get('/healthz', async () => ({ ok: true }));

const stop = () =>
  void app
    .close()
    .then(() => sql.end({ timeout: 2 }))
    .then(() => temporal.connection.close())
    .then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
void (async () => {
  temporal = new Client({
    connection: await Connection.connect({ address: config.temporal.address }),
    namespace: config.temporal.namespace,
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
})();
