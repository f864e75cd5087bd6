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
