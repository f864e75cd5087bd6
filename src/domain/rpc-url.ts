// RPC URLs of hosted nodes carry their API key in the user info, the query, or a long path segment
// (`/v2/<key>`, `/v3/<key>`): what the operator surface shows keeps the host and hides those.

const KEY_LIKE_SEGMENT = /^[A-Za-z0-9_-]{20,}$/;

export function redactRpcUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '[invalid url]';
  }
  const path = u.pathname
    .split('/')
    .map((segment) => (KEY_LIKE_SEGMENT.test(segment) ? '***' : segment))
    .join('/');
  const credentials = u.username || u.password ? '***@' : '';
  return `${u.protocol}//${credentials}${u.host}${path === '/' ? '' : path}${u.search ? '?***' : ''}`;
}
