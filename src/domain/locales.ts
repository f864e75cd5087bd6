// The languages of the hosted pages, and which one a customer gets: the session's
// own `locale` when the merchant set one, else the best match of the browser's Accept-Language.

export const PAGE_LOCALES = ['en', 'de', 'fr', 'es', 'pt'] as const;
export type PageLocale = (typeof PAGE_LOCALES)[number];
export const DEFAULT_LOCALE: PageLocale = 'en';

export const isPageLocale = (value: string): value is PageLocale => (PAGE_LOCALES as readonly string[]).includes(value);

/**
 * RFC 9110 Accept-Language: the highest-weighted range whose primary subtag we have (`pt-BR` → pt,
 * `*` → the default); ties keep the header's order. A malformed header is the default, never an error.
 */
export function negotiateLocale(header: string | undefined): PageLocale {
  if (!header) return DEFAULT_LOCALE;
  const ranges = header
    .slice(0, 512)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { primary: tag.trim().toLowerCase().split('-')[0]!, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((r) => r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const r of ranges) {
    if (r.primary === '*') return DEFAULT_LOCALE;
    if (isPageLocale(r.primary)) return r.primary;
  }
  return DEFAULT_LOCALE;
}
