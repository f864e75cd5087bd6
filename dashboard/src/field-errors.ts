import type { z } from 'zod';

// A refused form's field errors: the server's 422 names each field in its details.

// Zod's own words for a shape it refused, as a person reads them; the server's own messages
// (checksums, currencies, amounts) are sentences already and pass as they are.
const ZOD_WORDS: [RegExp, string][] = [
  [/^Too small/, 'Too short, or below the smallest value allowed.'],
  [/^Too big/, 'Too long, or above the largest value allowed.'],
  [/^Invalid (option|enum)/, 'Not one of the values allowed.'],
  [/^Invalid/, 'Not in the form expected.'],
];

/**
 * What the server said of one field of a refused form (its ValidationError's details). A detail's
 * path names the field last ("amount", "querystring.minAmount", "wallets.0.address").
 */
export function fieldError(error: unknown, name: string): string | undefined {
  // Read by shape, not by class: an ApiError carries the envelope's details, any other error none.
  const details = (error as { details?: unknown } | null | undefined)?.details;
  if (!Array.isArray(details)) return undefined;
  const said = (details as { path: string; message: string }[])
    .filter((d) => d.path === name || d.path.endsWith(`.${name}`))
    .map((d) => ZOD_WORDS.find(([pattern]) => pattern.test(d.message))?.[1] ?? d.message);
  return said.length ? [...new Set(said)].join(' ') : undefined;
}

/** A form the schema refused before it was sent: the server's 422 in the same shape (message, details). */
export class FormRefused extends Error {
  readonly status = 422;
  readonly code = 'ValidationError';
  constructor(readonly details: { path: string; message: string }[]) {
    super('The request is not valid.');
  }
}

/**
 * Checks a form's values with the schema its route checks them with, before sending: refused, it
 * throws what the server would answer (422, each field's message in the details), so the
 * page shows the same words beside the same fields without a round trip. Accepted, the values go
 * as they are: the server parses them again.
 */
export function checkForm<S extends z.ZodType>(schema: S, values: unknown): z.input<S> {
  const result = schema.safeParse(values);
  if (result.success) return values as z.input<S>;
  const details = result.error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    // As the server's error handler words a field it does not know.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => ({ path: base ? `${base}.${k}` : k, message: 'Unknown field.' }));
    return [{ path: base, message: issue.message }];
  });
  throw new FormRefused(details);
}
