import { html, type Raw } from '../../domain/html';

/**
 * The frame every hosted page shares: no indexing, no favicon request, the shared stylesheet, and
 * only same-origin assets (the pages' CSP allows nothing else).
 */
export function hostedDocument(head: { title: string; stylesheets?: string[]; scripts?: string[] }, body: Raw): string {
  const stylesheets = ['/pay/assets/checkout.css', ...(head.stylesheets ?? [])];
  return `<!doctype html>${html`
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>${head.title}</title>
  <link rel="icon" href="data:,">
  ${stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">`)}
  ${(head.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
${body}
</body>
</html>`.html}`;
}
