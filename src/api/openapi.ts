import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors';
import { errorExamples } from './openapi-error-examples';
import { exampleOf } from './openapi-examples';

// The OpenAPI document as merchants, client generators and linters read it. Routes describe their
// own operations (zod, one schema per route: summary, description, bodies); this completes what is
// the same across routes, in one place: an operationId for every operation, `security: []` on the
// public ones, the error answers each can give in its envelope with an example per `error` value
// (openapi-error-examples.ts), the admin token on every admin route, the tags, examples composed
// from the fields' own (openapi-examples.ts), and the webhooks we send (OpenAPI 3.1 `webhooks`)
// with their headers.
// test/api/openapi-lint.test.ts holds the result to Redocly's and Spectral's rulesets.

type Media = { schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, unknown> };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media>; headers?: Record<string, unknown> }>;
};
export type OpenApiDocument = {
  openapi: string;
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, unknown>>;
  webhooks?: unknown;
};

/** The tags, declared once with what they group; an operation's tag not listed here fails the linters. */
export const OPENAPI_TAGS = [
  { name: 'checkout', description: 'Hosted checkout sessions (merchant API v1), and their public status and deposit instructions.' },
  { name: 'payments', description: 'Your payments: sessions and transactions with their settlement split.' },
  { name: 'payment links', description: 'Shareable links, paid at most once.' },
  { name: 'settlement', description: 'Your balance, and the payouts of it to your settlement wallets.' },
  { name: 'plugin', description: 'E-commerce plugins: the connection handshake and the snake_case checkout.' },
  { name: 'simple', description: 'The simple API: no key, snake_case, the { status, data } envelope.' },
  { name: 'admin', description: 'The operator surface (ADMIN_TOKEN).' },
  { name: 'ops', description: 'Liveness and readiness probes.' },
  { name: 'webhooks', description: 'What the service POSTs to your endpoints, signed (svc-signature).' },
];

const code = (codes: ErrorCode[]) => ({ type: 'string', enum: codes });
const v1Error = {
  type: 'object',
  required: ['ok', 'error', 'message', 'requestId'],
  properties: {
    ok: { const: false },
    error: code(Object.keys(ERROR_STATUS) as ErrorCode[]),
    message: { type: 'string' },
    requestId: { type: 'string', description: 'Equal to the x-request-id header.' },
    details: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};
const simpleError = {
  type: 'object',
  required: ['status', 'error', 'message'],
  properties: { status: { const: 'error' }, error: code(Object.keys(ERROR_STATUS) as ErrorCode[]), message: { type: 'string' } },
};

const DESCRIPTIONS: Record<string, string> = {
  '400': 'Malformed request (bad JSON, wrong content type, a malformed id, or HTTP the parser refuses).',
  '401': 'Missing, unknown, revoked or retired credentials.',
  '403': 'Account not approved, key lacks the scope, or payments are disabled.',
  '404': 'Not found (or another merchant’s), or not implemented.',
  '409': 'The state does not allow it, or an Idempotency-Key conflict.',
  '413': 'Body over the limit (64 KiB).',
  '422': 'A field is not valid (`details` names it), or an Idempotency-Key already used for another method, path or id.',
  '429':
    'Too many requests (over the API key’s limit a second, orders from one address, open streams) or failed attempts; see Retry-After.',
  '503': 'Postgres or Temporal unreachable: nothing was done, retry.',
};

// draft-ietf-httpapi-ratelimit-headers-07, on every answer to a request with an API key.
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description: 'The key’s limit: requests per window of w seconds (API_RATE_LIMIT_PER_SECOND).',
    schema: { type: 'string', examples: ['100;w=1'] },
  },
  RateLimit: {
    description: 'Where the key stands: its limit, requests left in this window, seconds until the next.',
    schema: { type: 'string', examples: ['limit=100, remaining=42, reset=1'] },
  },
};
const RETRY_AFTER = { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1, examples: [1] } };

/** The statuses an operation can answer besides its own, from what it takes and who may call it. */
/** An authenticated server-sent events route (its 200 declares text/event-stream, see completeDocument). */
const isStream = (op: Operation) =>
  (op.security?.length ?? 0) > 0 &&
  Object.entries(op.responses?.['200']?.content ?? {}).some(
    ([media, m]) => media === 'text/event-stream' || m.schema?.contentMediaType === 'text/event-stream',
  );

function errorStatuses(path: string, method: string, op: Operation): string[] {
  // Any request may be refused by the HTTP parser (malformed, headers too large) with a 400.
  if (path === '/healthz') return ['400'];
  // 400 too: the HTTP parser refuses malformed requests (and headers over the limit) on every route.
  const statuses = new Set<string>(['400', '503']);
  const takesInput = Boolean(op.requestBody) || (op.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path' || p.in === 'header');
  if (takesInput || method !== 'get') statuses.add('422');
  if (op.requestBody) statuses.add('413');
  if ((op.parameters ?? []).some((p) => p.in === 'path')) statuses.add('404');
  if (path.startsWith('/admin/')) statuses.add('401').add('429');
  // Every keyed request counts against its key's limit a second.
  else if (op.security?.length) statuses.add('401').add('403').add('429');
  if (method === 'post' && op.security?.length) statuses.add('409');
  if (path === '/api/v1/plugin/connect') statuses.add('401').add('429');
  if (path === '/api/checkout' && method === 'post') statuses.add('429');
  // The merchant's event stream refuses a stream beyond its per-merchant limit.
  if (isStream(op)) statuses.add('429');
  if (path === '/readyz') statuses.delete('422');
  return [...statuses].filter((s) => !op.responses?.[s]).sort();
}

const camel = (words: string[]) =>
  words
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join('');

/** A stable, readable operationId from the method and path: GET /api/v1/transactions/{id} → getTransactionsById. */
function operationIdFor(method: string, path: string): string {
  const words = path
    .replace(/^\/(api\/v1|api|admin\/v1)\//, (_m, face: string) => (face === 'admin/v1' ? 'admin/' : face === 'api' ? 'simple/' : ''))
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `by-${segment.slice(1, -1)}` : segment))
    .flatMap((segment) => segment.split(/[-_.]/));
  return camel([method, ...words]);
}

/** The headers of every v1 delivery, as the receiver reads them. */
const DELIVERY_HEADERS = [
  { name: 'svc-delivery-id', description: 'The delivery (dlv_…): the same on every retry of it.', example: 'dlv_2Wd5Fg8Hj1Kl4Zx7Cv0Bn3Mq' },
  {
    name: 'svc-event-id',
    description: 'The event (evt_…), equal to the body’s eventId: process each once.',
    example: 'evt_9Lk2Jh5Gf8Ds1Az4Xc7Vb0Nm',
  },
  { name: 'svc-event-type', description: 'The event name, equal to the body’s event.', example: 'payment.completed' },
  { name: 'svc-timestamp', description: 'Unix seconds of this attempt; reject one more than 300 s away.', example: '1768473252' },
  {
    name: 'svc-signature',
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the secret of the endpoint (or your default secret for a session’s webhookUrl).',
    example: 't=1768473252,v1=5d2f8c1e9a7b3d4f6e8a0c2b4d6f8e0a1c3e5f7b9d1f3a5c7e9b1d3f5a7c9e1b',
  },
];

const WEBHOOK_TEXT: Record<string, { operationId: string; summary: string; description: string; headers: boolean }> = {
  'payment.event': {
    operationId: 'paymentEventWebhook',
    summary: 'A payment changed status (payment.processing, .completed, .failed, .expired, .canceled, .settled)',
    description:
      'POSTed to every enabled webhook endpoint of the merchant and to the session’s webhookUrl (one delivery per distinct URL), each signed with its own secret. ' +
      'Only payment.completed means paid. Answer any 2xx within 10 s; anything else is retried with the same delivery and event ids.',
    headers: true,
  },
  'payment.exception': {
    operationId: 'paymentExceptionWebhook',
    summary: 'Money arrived off the happy path (late, duplicate, overpaid, underpaid, unverified, wrong asset, reorged)',
    description: 'Sent once per exception, delivered and signed like the payment events. The operator resolves it (accept or refund).',
    headers: true,
  },
  'payment.refunded': {
    operationId: 'paymentRefundedWebhook',
    summary: 'Money was sent back on chain: an exception’s, or a refund of a completed payment',
    description:
      'Sent once per exception, when the refund transfer is confirmed: the exception’s body plus the refund; or once per refund of a completed payment (whole or part, `refundId`), when its transfer from the treasury is confirmed.',
    headers: true,
  },
  'webhook.test': {
    operationId: 'webhookTestWebhook',
    summary: 'A test event, sent from the dashboard to one endpoint',
    description:
      'Sent only when you press "Send a test event" on an endpoint in the dashboard, to that endpoint; signed like the payment events. It names the endpoint and no payment.',
    headers: true,
  },
  'transaction.settled': {
    operationId: 'transactionSettledWebhook',
    summary: 'A simple-API order settled',
    description:
      'POSTed once to the order’s webhook_url, unsigned; answer a 2xx within 8 s. No retry: reconcile with GET /api/transaction.',
    headers: false,
  },
};

export function completeDocument(doc: OpenApiDocument, webhooks: Record<string, z.ZodType>): OpenApiDocument {
  doc.components ??= {};
  doc.components.schemas = { ...doc.components.schemas, Error: v1Error, SimpleError: simpleError };
  doc.tags = OPENAPI_TAGS;
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    const simple = path.startsWith('/api/') && !path.startsWith('/api/v1/');
    const admin = path.startsWith('/admin/');
    for (const [method, op] of Object.entries(operations)) {
      op.operationId ??= operationIdFor(method, path);
      if (admin) op.security ??= [{ adminToken: [] }];
      // Public: the hosted pages' lookups, the simple API, plugin connect (credentials in its body), probes.
      op.security ??= [];
      op.responses ??= {};
      for (const status of errorStatuses(path, method, op)) {
        op.responses[status] = {
          description: DESCRIPTIONS[status] ?? 'Error.',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${simple ? 'SimpleError' : 'Error'}` } } },
        };
      }
      // A settlement is looked up by a payout's id or a payment's: a malformed id is 404 like an unknown one, never 400 InvalidId.
      const settlement = path.startsWith('/api/v1/settlements/');
      const context = {
        simple,
        admin,
        notFound: admin ? 'Merchant' : settlement ? 'Settlement' : 'Payment',
        pluginConnect: path === '/api/v1/plugin/connect',
        stream: isStream(op),
        keyed: !admin && (op.security?.length ?? 0) > 0,
        hasBody: Boolean(op.requestBody),
        hasPathId: path.includes('{') && !settlement,
        transactionCode: (op.parameters ?? []).some((p) => p.name === 'transaction_code'),
        paged: (op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'limit'),
        idempotent: (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'idempotency-key'),
        creates: method === 'post' && Boolean(op.requestBody) && Boolean(op.security?.length),
        scope: path.includes('/payment-links')
          ? 'payment_links:create'
          : method === 'get'
            ? 'transactions:read'
            : 'checkout_sessions:create',
      };
      const keyed = !admin && (op.security?.length ?? 0) > 0;
      for (const [status, response] of Object.entries(op.responses)) {
        // A stream's 200 is written by hand, past the headers a keyed answer carries.
        if (keyed && !(context.stream && status === '200')) response.headers = { ...response.headers, ...RATE_LIMIT_HEADERS };
        if (status === '429') response.headers = { ...response.headers, 'Retry-After': RETRY_AFTER };
        // A body that is not JSON (the settlements CSV) says its media type in its schema.
        const declared = response.content?.['application/json']?.schema?.contentMediaType;
        if (typeof declared === 'string' && response.content) response.content = { [declared]: response.content['application/json']! };
        for (const media of Object.values(response.content ?? {})) {
          if (Number(status) >= 400 && media.schema?.$ref) media.examples = errorExamples(status, context);
          else addExample(media);
        }
      }
      for (const media of Object.values(op.requestBody?.content ?? {})) addExample(media);
    }
  }
  doc.webhooks = Object.fromEntries(
    Object.entries(webhooks).map(([event, schema]) => {
      const text = WEBHOOK_TEXT[event] ?? {
        operationId: `${event.replace(/\W+(\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
        summary: `The ${event} event`,
        description: `The ${event} event.`,
        headers: true,
      };
      const body: Media = { schema: z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' }) };
      addExample(body);
      return [
        event,
        {
          post: {
            operationId: text.operationId,
            summary: text.summary,
            description: text.description,
            tags: ['webhooks'],
            security: [],
            parameters: text.headers
              ? DELIVERY_HEADERS.map((h) => ({
                  in: 'header',
                  name: h.name,
                  required: true,
                  description: h.description,
                  schema: { type: 'string' },
                  example: h.example,
                }))
              : [],
            requestBody: { required: true, content: { 'application/json': body } },
            responses: {
              '200': { description: 'Any 2xx within the timeout acknowledges the delivery.' },
              '400': {
                description: 'Any other answer (or none) is a failed attempt; v1 deliveries are retried, transaction.settled is not.',
              },
            },
          },
        },
      ];
    }),
  );
  return doc;
}

/** Puts an example on a media type that has none, composed from its schema's fields. */
function addExample(media: Media): void {
  if (media.example !== undefined || media.examples || !media.schema) return;
  const schema = media.schema as { examples?: unknown[] };
  if (schema.examples?.length) return;
  const example = exampleOf(media.schema);
  if (example !== undefined) media.example = example;
}
