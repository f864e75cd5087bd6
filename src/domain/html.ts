// Escaping for server-rendered pages: pure string code, shared by our hosted pages and the sandbox provider's.
/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Template tag: interpolated values are escaped unless wrapped with raw(). */
export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);

/** What a template may interpolate: text, numbers, markup already built, or nothing. */
export type HtmlValue = string | number | boolean | null | undefined | Raw | readonly (string | number | Raw)[];

function piece(v: HtmlValue): string {
  if (v instanceof Raw) return v.html;
  if (v === null || v === undefined || v === false) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return escapeHtml(String(v));
  return v.map(piece).join('');
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += piece(v) + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}
