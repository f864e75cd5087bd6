import { html, type Raw } from '../../domain/html';

export interface DocumentHead {
  title: string;
  stylesheets?: string[];
  scripts?: string[];
  /** The page's language (BCP 47), for screen readers and the browser's own translation offer. */
  lang?: string;
  /**
   * Reload (or go to `url`) after `seconds`, for browsers without JavaScript only: inside <noscript>,
   * so a page with its script polls instead and never reloads under a reader's eyes (WCAG 2.2.1).
   */
  refresh?: { seconds: number; url?: string | undefined } | undefined;
}

/**
 * The frame every hosted page shares: no indexing, no favicon request, the shared stylesheet, and
 * only same-origin assets (the pages' CSP allows nothing else).
 */
export function hostedDocument(head: DocumentHead, body: Raw): string {
  const stylesheets = ['/pay/assets/checkout.css', ...(head.stylesheets ?? [])];
  const refresh = head.refresh ? `${head.refresh.seconds}${head.refresh.url ? `;url=${head.refresh.url}` : ''}` : null;
  return `<!doctype html>${
    html`
<html lang="${head.lang ?? 'en'}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  ${refresh ? html`<noscript><meta http-equiv="refresh" content="${refresh}"></noscript>` : ''}
  <title>${head.title}</title>
  <link rel="icon" href="data:,">
  ${stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">`)}
  ${(head.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
${body}
</body>
</html>`.html
  }`;
}
