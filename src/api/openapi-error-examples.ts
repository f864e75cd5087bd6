import { ERROR_STATUS, type ErrorCode } from '../domain/errors';

// The error answers of the OpenAPI document, by status: each `error` value that status carries,
// with the message the code really sends, for the operations it applies to.

export interface ErrorContext {
  simple: boolean;
  admin: boolean;
  /** What the operation's 404 says is not found (`Payment not found.`). */
  notFound: string;
  pluginConnect: boolean;
  hasBody: boolean;
  hasPathId: boolean;
  /** The simple API's lookups by `transaction_code` (a UUID). */
  transactionCode: boolean;
  /** A list that takes a page size (`limit`): its 422 names a query parameter, not a body field. */
  paged: boolean;
  idempotent: boolean;
  creates: boolean;
  /** The scope the route asks of a key (the 403 InsufficientScope names it). */
  scope: string;
  /** A server-sent events stream: its 429 is about open streams, its 422 about `Last-Event-ID`. */
  stream: boolean;
  /** Called with an API key, which has its limit of requests a second. */
  keyed: boolean;
}

type Sample = { code: ErrorCode; message: string; details?: { path: string; message: string }[] };

function samplesFor(status: string, c: ErrorContext): Sample[] {
  switch (status) {
    case '400':
      return [
        c.hasBody
          ? { code: 'BadRequest', message: 'The body is not valid JSON.' }
          : { code: 'BadRequest', message: 'The URL is not valid: bad percent-encoding or invalid UTF-8.' },
        ...(c.hasPathId && !c.admin && !c.simple
          ? [{ code: 'InvalidId' as const, message: 'The id must be a canonical payment id (SV_…); internal row ids are not accepted.' }]
          : []),
        ...(c.transactionCode ? [{ code: 'InvalidId' as const, message: 'transaction_code must be a UUID.' }] : []),
      ];
    case '401':
      if (c.admin) return [{ code: 'Unauthorized', message: 'The admin token is invalid or missing.' }];
      if (c.pluginConnect) return [{ code: 'Unauthorized', message: 'The merchant ID, API key or security code is not valid.' }];
      return [{ code: 'Unauthorized', message: 'The API key is invalid or missing.' }];
    case '403':
      return [
        { code: 'InsufficientScope', message: `This API key lacks the scope ${c.scope}.` },
        { code: 'AccountNotApproved', message: 'The merchant account is not approved for live payments.' },
        ...(c.creates ? [{ code: 'PaymentsDisabled' as const, message: 'New payments are disabled on this platform for now.' }] : []),
      ];
    case '404':
      return [{ code: 'NotFound', message: `${c.notFound} not found.` }];
    case '409':
      return [
        {
          code: 'Conflict',
          message: c.admin
            ? 'The merchant is already approved; rotate the key to get a new one.'
            : 'The state of this resource does not allow it.',
        },
        ...(c.idempotent
          ? [{ code: 'IdempotencyConflict' as const, message: 'This Idempotency-Key was used with a different request.' }]
          : []),
      ];
    case '413':
      return [{ code: 'PayloadTooLarge', message: 'The request body is larger than the limit of 64 KiB.' }];
    case '422':
      return [
        {
          code: 'ValidationError',
          message: 'The request is not valid.',
          details: c.stream
            ? [{ path: 'last-event-id', message: 'Invalid string: must match pattern /^\\d{1,15}$/' }]
            : c.paged
              ? [{ path: 'querystring.limit', message: 'Too small: expected number to be >=1' }]
              : [{ path: c.simple ? 'fiat_amount' : 'amount', message: 'Too small: expected number to be >0' }],
        },
        ...(c.idempotent
          ? [
              {
                code: 'IdempotencyKeyReused' as const,
                message:
                  'This Idempotency-Key was already used for another request (another method, path or id); use a new key for each request.',
              },
            ]
          : []),
      ];
    case '429':
      return [
        {
          code: 'RateLimited',
          message: c.stream
            ? 'At most 5 event streams may be open at once for one merchant.'
            : c.keyed
              ? 'This API key is over its limit of 100 requests a second.'
              : c.simple
                ? 'At most 60 orders a minute may be opened from one address. Try again later.'
                : 'Too many failed attempts. Try again later.',
        },
      ];
    case '503':
      return [{ code: 'Unavailable', message: 'A backing service is unavailable; the request did nothing and may be retried.' }];
    default:
      return [];
  }
}

/** Named examples (one per `error` value) for an error answer of `status`, in the envelope of its API. */
export function errorExamples(status: string, c: ErrorContext): Record<string, { summary: string; value: Record<string, unknown> }> {
  const samples = samplesFor(status, c).filter((s) => String(ERROR_STATUS[s.code]) === status);
  return Object.fromEntries(
    samples.map((s) => [
      s.code,
      {
        summary: s.code,
        value: c.simple
          ? { status: 'error', error: s.code, message: s.message }
          : {
              ok: false,
              error: s.code,
              message: s.message,
              requestId: 'req_8fK2mQ7xV1cL9pZ4rT6w',
              ...(s.details ? { details: s.details } : {}),
            },
      },
    ]),
  );
}
