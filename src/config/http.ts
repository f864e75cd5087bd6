import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { httpUrl, port } from './parse';

// The API server's HTTP face: where it listens, the URLs it is reached at, whom it trusts to name a
// client, and the limits on what one client or key may ask of it.

// TRUST_PROXY: addresses or CIDRs of our own reverse proxies, comma-separated. Only a peer in this
// list may say, through X-Forwarded-For, who the client is (the per-IP limits key on that answer).
const trustProxy = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  )
  .refine((list) => list.every(isAddressOrCidr), { message: 'must be a comma-separated list of IP addresses or CIDRs' });

export const httpVariables = {
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: httpUrl.optional(),
  // How other processes of the deployment reach the service (the sandbox posts its callbacks and
  // presses Pay there); customers never see it. Default: PUBLIC_BASE_URL.
  SERVICE_URL: httpUrl.optional(),
  TRUST_PROXY: trustProxy.default([]),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  // How long an API process trusts a key it authenticated (ttl-cache.ts); 0 reads it on every request.
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  // Requests one API key may make per second (each API process counts its own); Stripe's live mode allows 100.
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(100),
  // Orders the key-less simple API opens per client address a minute, counted in Postgres across processes.
  SIMPLE_API_ORDERS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(60),
  // An event stream ends after this long; its client reconnects with Last-Event-ID and misses nothing.
  EVENT_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
};

export interface HttpSettings {
  port: number;
  host: string;
  /** What customers and merchants see: checkout URLs, redirects, callback URLs given to providers. */
  publicBaseUrl: string;
  /** How the deployment's own processes reach the service (default: publicBaseUrl). */
  serviceUrl: string;
  bodyLimitBytes: number;
  trustProxy: string[];
  /** Authenticated keys are kept this long per process (0: off); admin writes empty the cache at once. */
  apiKeyCacheMs: number;
  /** Requests per second one API key may make, per API process. */
  rateLimitPerSecond: number;
  /** Simple-API orders one client address may open a minute. */
  simpleOrdersPerMinute: number;
  /** How long a merchant's event stream stays open at most. */
  eventStreamMaxSeconds: number;
}

export function httpSettingsOf(e: z.output<z.ZodObject<typeof httpVariables>>): HttpSettings {
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl,
    serviceUrl: (e.SERVICE_URL ?? publicBaseUrl).replace(/\/+$/, ''),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY,
    apiKeyCacheMs: e.API_KEY_CACHE_SECONDS * 1000,
    rateLimitPerSecond: e.API_RATE_LIMIT_PER_SECOND,
    simpleOrdersPerMinute: e.SIMPLE_API_ORDERS_PER_MINUTE,
    eventStreamMaxSeconds: e.EVENT_STREAM_MAX_SECONDS,
  };
}

function isAddressOrCidr(value: string): boolean {
  return ipaddr.isValid(value) || ipaddr.isValidCIDR(value);
}
