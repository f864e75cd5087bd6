import { isUtf8 } from 'node:buffer';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, validationError, type ErrorDetail } from '../../domain/errors';

// A NUL character or invalid UTF-8 anywhere in input is refused here, once, for every
// route, before any route code runs. Postgres cannot store a NUL in text or jsonb, and a lone UTF-16
// surrogate (what invalid UTF-8 becomes once it is a JS string) is not text either; either one
// reaching a query was a 500.

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Nesting beyond this is no legitimate body of ours; the walk stops rather than recurse without end.
const MAX_DEPTH = 32;

function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain a NUL character';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text';
  return null;
}

/** The first string (value or key) in a parsed input that is not storable text, with its path. */
export function findBadText(value: unknown, path: string, depth = 0): ErrorDetail | null {
  if (typeof value === 'string') {
    const problem = stringProblem(value);
    return problem ? { path, message: problem } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_DEPTH) return { path, message: 'is nested too deeply' };
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const keyProblem = stringProblem(key);
    if (keyProblem) return { path: childPath, message: `(the field name) ${keyProblem}` };
    const found = findBadText(child, childPath, depth + 1);
    if (found) return found;
  }
  return null;
}

/** The raw request target: percent-encoding must decode to UTF-8 text without NUL. */
function checkUrl(raw: string): void {
  let decoded = raw;
  // Most URLs have nothing to decode, and decoding one costs a copy on every request.
  if (raw.includes('%')) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      throw new AppError('BadRequest', 'The URL is not valid: bad percent-encoding or invalid UTF-8.');
    }
  }
  if (decoded.includes('\u0000')) throw new AppError('BadRequest', 'The URL must not contain a NUL character.');
}

const hasNul = (value: string | string[] | undefined): boolean =>
  typeof value === 'string' ? value.includes('\u0000') : value !== undefined && value.some((v) => v.includes('\u0000'));

async function inputHygienePlugin(app: FastifyInstance) {
  // JSON bodies are checked as bytes first: Fastify's own parser would turn invalid UTF-8 into
  // U+FFFD silently. The default parser then does the rest (empty body, __proto__ poisoning).
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(new AppError('BadRequest', 'The body is not valid UTF-8.'), undefined);
      return;
    }
    void parseJson(request, bytes.toString('utf8'), done);
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    checkUrl(request.raw.url ?? '/');
    const headers = request.headers;
    for (const name in headers) {
      if (hasNul(headers[name])) throw new AppError('BadRequest', `The ${name} header must not contain a NUL character.`);
    }
  });

  // After parsing, before schema validation: body strings, field names, query and path parameters.
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const found = findBadText(request.params, 'params') ?? findBadText(request.query, 'query') ?? findBadText(request.body, '');
    if (found) throw validationError([found], 'The request contains text that cannot be accepted.');
  });
}

export default fp(inputHygienePlugin, { name: 'input-hygiene', dependencies: ['errors'] });
