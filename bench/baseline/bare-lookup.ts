import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import postgres from 'postgres';
import { paymentSessionView, publicSessionView } from '../../src/api/checkout/views';
import type { CheckoutSessionRow } from '../../src/db/queries/checkout-sessions';
import type { PaymentExceptionRow } from '../../src/db/queries/payment-exceptions';
import { exceptionView } from '../../src/domain/exceptions';

// The lookup baseline: a bare Fastify + postgres.js endpoint running the same key and
// session queries as ours (the key joined to its merchant by hash, the visible session by id with
// whether it has exceptions, their list only then; the public lookup: the session, then its merchant's name), with postgres.js's prepared statements and the
// same rendering (the view functions, and the answer put together as ours does, without a spread
// into a copy), and nothing else: no hooks, no logging, no schema validation.
const sql = postgres(process.env.DATABASE_URL!, {
  max: 10,
  onnotice: () => {},
  transform: postgres.camel,
  types: { bigint: postgres.BigInt },
});
const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? 'http://127.0.0.1';
const app = Fastify({ logger: false });

const fail = (status: number, error: string) => ({ status, body: { ok: false, error } });

app.get<{ Params: { id: string } }>('/api/v1/payment-sessions/:id', async (request, reply) => {
  const match = /^Bearer ([^\s]+)$/.exec(request.headers.authorization ?? '');
  if (!match) return reply.status(401).send(fail(401, 'Unauthorized').body);
  const hash = createHash('sha256').update(match[1]!).digest('hex');
  const [key] = await sql`
    select k.id, k.merchant_id, k.kind, k.key_hash, k.display_prefix, k.last4, k.scopes, k.created_at, k.expires_at, k.revoked_at, k.last_used_at,
           m.id as m_id, m.name as m_name, m.status as m_status, m.commission_bps as m_commission_bps, m.security_code_hash as m_security_code_hash,
           m.webhook_secret_encrypted as m_webhook_secret_encrypted, m.security_code_rotated_at as m_security_code_rotated_at,
           m.created_at as m_created_at, m.updated_at as m_updated_at, m.approved_at as m_approved_at
    from api_keys k inner join merchants m on m.id = k.merchant_id where k.key_hash = ${hash}`;
  if (!key || key.revokedAt || (key.expiresAt && (key.expiresAt as Date) <= new Date()))
    return reply.status(401).send(fail(401, 'Unauthorized').body);
  if (key.mStatus !== 'approved') return reply.status(403).send(fail(403, 'AccountNotApproved').body);
  if (!(key.scopes as string[]).includes('transactions:read')) return reply.status(403).send(fail(403, 'InsufficientScope').body);
  const [session] = await sql<(CheckoutSessionRow & { hasExceptions: boolean })[]>`
    select s.*, exists (select 1 from payment_exceptions e where e.payment_id = s.id) as has_exceptions
    from checkout_sessions s where s.id = ${request.params.id}`;
  if (!session || session.merchantId !== key.mId) return reply.status(404).send(fail(404, 'NotFound').body);
  const exceptions = session.hasExceptions
    ? (await sql<PaymentExceptionRow[]>`select * from payment_exceptions where payment_id = ${session.id} order by created_at, id`).map(
        exceptionView,
      )
    : [];
  return { ok: true, paymentSession: Object.assign(paymentSessionView(session, publicBaseUrl), { exceptions }) };
});

app.get<{ Params: { id: string } }>('/api/v1/checkout/sessions/:id', async (request, reply) => {
  const [session] = await sql<CheckoutSessionRow[]>`select * from checkout_sessions where id = ${request.params.id}`;
  if (!session) return reply.status(404).send(fail(404, 'NotFound').body);
  const [merchant] = await sql<{ name: string }[]>`select name from merchants where id = ${session.merchantId}`;
  void reply.header('cache-control', 'no-store');
  return Object.assign(publicSessionView(session, merchant?.name ?? ''), { ok: true });
});

app.get('/healthz', async () => ({ ok: true }));

const stop = () =>
  void app
    .close()
    .then(() => sql.end({ timeout: 2 }))
    .then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
void app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
