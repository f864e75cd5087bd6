import type { FastifyReply, FastifyRequest } from 'fastify';

// Post/redirect/get for the customer pages (every page is a GET that reloads). A form
// post answers a browser with 303 to the page's GET URL, whatever happened, so the address bar never
// holds a form's result: a reload, a meta refresh, a bookmark or a restored tab reads the page as it
// now stands instead of posting again (or GETting an action URL). What the action could not do
// travels to that GET once, as a short-lived cookie naming catalogue keys (never text), and the GET
// says it in the page's language.
//
// A client that does not navigate (no text/html in Accept: scripts, curl, the sandbox's helper) keeps
// the direct answer: the refusal's status with the page, which is what such a client can act on.

const NOTICE_COOKIE = 'svc_notice';
// Catalogue keys only: the cookie is the browser's to edit, so nothing else is ever rendered from it.
// One level of nesting too (`checkout.refund.invalid`, `checkout.email.invalid`): without it those
// refusals reached the page as nothing at all.
const NOTICE_KEY = /^(?:common|checkout|link|simple)(?:\.[A-Za-z]{1,40}){1,2}$/;
const NOTICE_SECONDS = 60;

/** A browser navigating (a form post, a link): it should land on a GET URL. */
export function navigates(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/** 303 to the page's GET URL, carrying what happened (catalogue keys) to its next render. */
export function redirectToPage(reply: FastifyReply, pageUrl: string, cookiePath: string, noticeKeys: string[] = []): FastifyReply {
  const keys = noticeKeys.filter((k) => NOTICE_KEY.test(k));
  if (keys.length > 0) {
    void reply.header(
      'set-cookie',
      `${NOTICE_COOKIE}=${keys.join('~')}; Path=${cookiePath}; Max-Age=${NOTICE_SECONDS}; HttpOnly; SameSite=Lax`,
    );
  }
  return reply.redirect(pageUrl, 303);
}

/** The notice a redirect left for this page, if any; read once (the cookie is cleared with this answer). */
export function takeNotice(request: FastifyRequest, reply: FastifyReply, cookiePath: string): string[] {
  const value = cookieValue(request.headers.cookie, NOTICE_COOKIE);
  if (value === undefined) return [];
  void reply.header('set-cookie', `${NOTICE_COOKIE}=; Path=${cookiePath}; Max-Age=0; HttpOnly; SameSite=Lax`);
  return value.split('~').filter((k) => NOTICE_KEY.test(k));
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
