import http from 'node:http';
import https from 'node:https';
import { resolveTarget } from './pinned-target';

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** A refusal by the URL policy: retrying cannot help. */
  refused: boolean;
}

/**
 * One POST of a webhook body: the URL policy is checked again here, after DNS resolution, and the
 * connection goes to the address that was checked (pinned), so a DNS answer that changes between
 * check and connect cannot reach an internal host. Redirects are not followed.
 */
export async function postWebhook(input: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}): Promise<PostResult> {
  const started = Date.now();
  const done = (r: Omit<PostResult, 'durationMs'>): PostResult => ({ ...r, durationMs: Date.now() - started });

  const target = await resolveTarget(input.url, input.allowPrivate);
  if (!target.ok) return done({ statusCode: null, error: target.error, refused: target.refused });
  const { url, lookup: pinnedLookup } = target;

  return new Promise<PostResult>((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...input.headers, 'content-length': Buffer.byteLength(input.body).toString() },
        lookup: pinnedLookup,
        timeout: input.timeoutMs,
        agent: false,
      },
      (response) => {
        // Drain and discard: the receiver's body is not ours to store.
        response.resume();
        response.on('end', () => resolve(done({ statusCode: response.statusCode ?? null, error: null, refused: false })));
        response.on('error', (err) => resolve(done({ statusCode: response.statusCode ?? null, error: err.message, refused: false })));
      },
    );
    // The overall deadline: headers and body within timeoutMs.
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${input.timeoutMs} ms`)), input.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`timed out after ${input.timeoutMs} ms`)));
    request.on('error', (err) => resolve(done({ statusCode: null, error: err.message, refused: false })));
    request.on('close', () => clearTimeout(deadline));
    request.end(input.body);
  });
}
