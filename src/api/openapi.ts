import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors';

// The OpenAPI document as merchants and client generators read it. Routes describe their own
// success bodies (zod, one schema per route); this completes what is the same across routes, in one
// place: an operationId for every operation, the error answers each can give in its envelope, the
// admin token on every admin route, and the webhook payloads we send (OpenAPI 3.1 `webhooks`).

type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
};
export type OpenApiDocument = { openapi: string; paths?: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>>; webhooks?: unknown };

const code = (codes: ErrorCode[]) => ({ type: 'string', enum: codes });
const v1Error = {
  type: 'object',
  required: ['ok', 'error', 'message', 'requestId'],
  properties: {
    ok: { const: false },
    error: code(Object.keys(ERROR_STATUS) as ErrorCode[]),
    message: { type: 'string' },
    requestId: { type: 'string', description: 'Equal to the x-request-id header.' },
    details: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};
const simpleError = {
  type: 'object',
  required: ['status', 'error', 'message'],
  properties: { status: { const: 'error' }, error: code(Object.keys(ERROR_STATUS) as ErrorCode[]), message: { type: 'string' } },
};

const DESCRIPTIONS: Record<string, string> = {
  '400': 'Malformed request (bad JSON, wrong content type, a malformed id).',
  '401': 'Missing, unknown, revoked or retired credentials.',
  '403': 'Account not approved, key lacks the scope, or payments are disabled.',
  '404': 'Not found (or another merchant’s), or not implemented.',
  '409': 'The state does not allow it, or an Idempotency-Key conflict.',
  '413': 'Body over the limit (64 KiB).',
  '422': 'A field is not valid (`details` names it), or an Idempotency-Key already used for another method, path or id.',
  '429': 'Too many failed attempts; see Retry-After.',
  '503': 'Postgres or Temporal unreachable: nothing was done, retry.',
};

/** The statuses an operation can answer besides its own, from what it takes and who may call it. */
function errorStatuses(path: string, method: string, op: Operation): string[] {
  if (path === '/healthz') return [];
  const statuses = new Set<string>(['503']);
  const takesInput = Boolean(op.requestBody) || (op.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path');
  if (takesInput || method !== 'get') statuses.add('400').add('422');
  if (op.requestBody) statuses.add('413');
  if ((op.parameters ?? []).some((p) => p.in === 'path')) statuses.add('404');
  if (path.startsWith('/admin/')) statuses.add('401').add('429');
  else if (op.security?.length) statuses.add('401').add('403');
  if (method === 'post' && op.security?.length) statuses.add('409');
  if (path === '/api/v1/plugin/connect') statuses.add('401').add('429');
  if (path === '/readyz') ['400', '422'].forEach((s) => statuses.delete(s));
  return [...statuses].filter((s) => !op.responses?.[s]).sort();
}

const camel = (words: string[]) => words.filter(Boolean).map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');

/** A stable, readable operationId from the method and path: GET /api/v1/transactions/{id} → getTransactionsById. */
function operationIdFor(method: string, path: string): string {
  const words = path
    .replace(/^\/(api\/v1|api|admin\/v1)\//, (_m, face: string) => (face === 'admin/v1' ? 'admin/' : face === 'api' ? 'simple/' : ''))
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `by-${segment.slice(1, -1)}` : segment))
    .flatMap((segment) => segment.split(/[-_]/));
  return camel([method, ...words]);
}

export function completeDocument(doc: OpenApiDocument, webhooks: Record<string, z.ZodType>): OpenApiDocument {
  doc.components ??= {};
  doc.components.schemas = { ...doc.components.schemas, Error: v1Error, SimpleError: simpleError };
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    const simple = path.startsWith('/api/') && !path.startsWith('/api/v1/');
    for (const [method, op] of Object.entries(operations)) {
      op.operationId ??= operationIdFor(method, path);
      if (path.startsWith('/admin/')) op.security ??= [{ adminToken: [] }];
      op.responses ??= {};
      for (const status of errorStatuses(path, method, op)) {
        op.responses[status] = {
          description: DESCRIPTIONS[status] ?? 'Error.',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${simple ? 'SimpleError' : 'Error'}` } } },
        };
      }
    }
  }
  doc.webhooks = Object.fromEntries(
    Object.entries(webhooks).map(([event, schema]) => [
      event,
      {
        post: {
          summary: `The ${event} event, as POSTed to your endpoint`,
          requestBody: { content: { 'application/json': { schema: z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' }) } } },
          responses: { '200': { description: 'Any 2xx within the timeout acknowledges the delivery.' } },
        },
      },
    ]),
  );
  return doc;
}
