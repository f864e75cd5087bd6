import http from 'node:http';
import https from 'node:https';
import { resolveTarget } from './pinned-target';

export type ProofFetch = { ok: true; body: string } | { ok: false; reason: string };

// The proof file is a token or a few; anything longer is not one.
const MAX_BYTES = 4096;

/**
 * GETs a website's proof-of-control file (the plugin serves its token at
 * /.well-known/svc-checkout.txt). The same URL policy as webhook deliveries: https to public
 * addresses (unless ALLOW_PRIVATE_URLS), the checked address pinned, no redirects followed (a
 * redirect would let another host answer for the site), a short deadline and a small body.
 */
export async function fetchSiteProof(rawUrl: string, options: { allowPrivate: boolean; timeoutMs: number }): Promise<ProofFetch> {
  const target = await resolveTarget(rawUrl, options.allowPrivate);
  if (!target.ok) return { ok: false, reason: `${rawUrl}: ${target.error}` };
  return new Promise<ProofFetch>((resolve) => {
    const client = target.url.protocol === 'https:' ? https : http;
    const request = client.request(
      target.url,
      {
        method: 'GET',
        headers: { 'user-agent': 'svc-site-verification/1.0' },
        lookup: target.lookup,
        timeout: options.timeoutMs,
        agent: false,
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          resolve({ ok: false, reason: `${rawUrl} answered HTTP ${response.statusCode ?? '?'}` });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) {
            request.destroy();
            resolve({ ok: false, reason: `${rawUrl} is larger than ${MAX_BYTES} bytes` });
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ ok: true, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', (err) => resolve({ ok: false, reason: `${rawUrl}: ${err.message}` }));
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    request.on('error', (err) => resolve({ ok: false, reason: `${rawUrl}: ${err.message}` }));
    request.on('close', () => clearTimeout(deadline));
    request.end();
  });
}
