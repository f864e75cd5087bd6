import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { html, raw, type Raw } from '../../domain/html';
import { readDevMailbox } from '../../mail/dev-mailbox';
import { securityHeaders } from './headers';

// The development mailbox at /dashboard/dev/mail shows what the local SMTP sink
// received (verification links included), newest first. Registered only outside production, with a
// mailbox folder; anywhere else the path is the app's own "not found".

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;

/** The message's text, escaped, with its web addresses as links. */
function textWithLinks(text: string): Raw {
  const parts: (string | Raw)[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    parts.push(text.slice(last, match.index));
    parts.push(html`<a href="${match[0]}">${match[0]}</a>`);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return html`${parts}`;
}

const STYLE = `:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0 auto;max-width:52rem;padding:1rem;background:#fff;color:#1a1a1a}
a{color:#0b57d0}article{border-top:1px solid #999;padding:.5rem 0}pre{white-space:pre-wrap;overflow-wrap:anywhere}
@media (prefers-color-scheme:dark){body{background:#121212;color:#eee}a{color:#a8c7fa}}`;

const devMailboxPage: FastifyPluginAsync<{ dir: string }> = async (app, { dir }) => {
  app.get('/dashboard/dev/mail', { schema: { hide: true } }, async (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const messages = readDevMailbox(dir);
    const page = html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
    <title>Development mailbox</title>
    <style nonce="${nonce}">
      ${raw(STYLE)}
    </style>
  </head>
  <body>
    <main>
      <h1>Development mailbox</h1>
      <p>Mail the service sent through the local SMTP sink (${dir}), newest first. Only outside production.</p>
      ${messages.length === 0 ? html`<p>No mail yet.</p>` : ''}
      ${messages.map(
        (m) => html`<article>
          <h2>${m.subject}</h2>
          <p>To ${m.to.join(', ')}, from ${m.from}, at <time datetime="${m.receivedAt}">${m.receivedAt}</time></p>
          <pre>${textWithLinks(m.text)}</pre>
        </article>`,
      )}
    </main>
  </body>
</html>`;
    return securityHeaders(reply, nonce).type('text/html; charset=utf-8').send(page.html);
  });
};

export default devMailboxPage;
