/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Template tag: interpolated values are escaped unless wrapped with raw(). */
export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    const piece = Array.isArray(v)
      ? v.map((x) => (x instanceof Raw ? x.html : escapeHtml(String(x)))).join('')
      : v instanceof Raw
        ? v.html
        : v === null || v === undefined || v === false
          ? ''
          : escapeHtml(String(v));
    out += piece + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}
