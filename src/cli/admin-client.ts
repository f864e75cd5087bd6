// The ops CLI's only way into a deployment: the admin API over HTTP, so the same CLI works against a
// laptop, a container or production, and never needs database credentials.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ApiRequest {
  method: HttpMethod;
  /** Path under the admin prefix, with any query string, e.g. `/merchants/MER_…`. */
  path: string;
  body?: unknown;
  /** A text answer (e.g. a CSV export) rather than JSON: returned as the string it is. */
  text?: 'text/csv';
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The API answered, and refused: the envelope, or what a proxy put in its place. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AdminApiError';
  }
}

/** No HTTP answer at all: the operator needs to hear which URL was tried, not "fetch failed". */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the admin API at ${url} (${reason}); is the service running there? Set --api-url or SVC_URL.`);
    this.name = 'ConnectionError';
  }
}

export interface AdminClientOptions {
  /** Base URL of the service, without the admin prefix and without a trailing slash. */
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export const ADMIN_PREFIX = '/admin/v1';

export function createAdminClient(options: AdminClientOptions) {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;

  return async function request(req: ApiRequest): Promise<unknown> {
    const url = `${options.baseUrl}${ADMIN_PREFIX}${req.path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: req.text ?? 'application/json' };
    // The API refuses a JSON content type with an empty body, so bodyless calls send neither.
    if (req.body !== undefined) headers['content-type'] = 'application/json';

    let res: Response;
    try {
      res = await doFetch(url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        // Following a redirect would turn a POST into a GET and may carry the token elsewhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ConnectionError(options.baseUrl, connectionReason(err, timeoutMs));
    }

    const text = await res.text();
    const body = parseJson(text);
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location') ?? 'elsewhere';
      throw new AdminApiError(res.status, 'Redirect', `the service redirects to ${location}; use that as --api-url`, undefined, []);
    }
    if (!res.ok) throw toApiError(res, body, text);
    if (req.text) return text;
    if (body === undefined) {
      throw new AdminApiError(
        res.status,
        'BadResponse',
        `expected JSON, got: ${snippet(text)}`,
        res.headers.get('x-request-id') ?? undefined,
        [],
      );
    }
    return body;
  };
}

export type AdminClient = ReturnType<typeof createAdminClient>;

export function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An error answer as the CLI reports it: the envelope, or what a proxy put in its place. */
export function toApiError(res: Response, body: unknown, text: string): AdminApiError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const details = Array.isArray(envelope.details)
    ? envelope.details.map((d) => {
        const detail = (d ?? {}) as Record<string, unknown>;
        return { path: str(detail.path) ?? '', message: str(detail.message) ?? JSON.stringify(d) };
      })
    : [];
  return new AdminApiError(
    res.status,
    str(envelope.error) ?? (res.statusText || 'HttpError'),
    str(envelope.message) ?? (snippet(text) || 'no message'),
    str(envelope.requestId) ?? res.headers.get('x-request-id') ?? undefined,
    details,
  );
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function connectionReason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
