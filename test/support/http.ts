import { expect } from 'vitest';

/** JSON over a real socket. */
export async function http(
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; redirect?: 'manual' | 'follow' | 'error' } = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(url, {
    method,
    redirect: options.redirect ?? 'manual',
    headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Polls `read` until `done` holds or the time runs out; returns the last value read. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  label = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) {
      // Rows carry bigints (amounts): said as text, so the message is the timeout and not a TypeError.
      const said = JSON.stringify(last, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
      expect.fail(`timed out waiting for ${label}; last value: ${said}`);
    }
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}
