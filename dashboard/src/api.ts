// The dashboard's one way to its internal API (/dashboard/api/, cookie session): JSON both ways, and
// the CSRF token (a cookie the server sets, readable here) repeated in a header on every write.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

function csrfToken(): string {
  const match = /(?:^|;\s*)svc_dash_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]!) : '';
}

export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as { error?: string; message?: string; details?: { path: string; message: string }[] };
  if (!res.ok) throw new ApiError(res.status, json.error ?? 'Error', json.message ?? `The request failed (${res.status}).`, json.details);
  return json as T;
}

export interface Me {
  ok: true;
  user: { id: string; email: string; role: 'owner' | 'admin' | 'developer' | 'viewer' };
  merchant: { id: string; name: string; status: 'pending_review' | 'approved' | 'suspended' };
  liveKeyWaiting: boolean;
  steppedUp: boolean;
  twoFactor: boolean;
}

export interface ApiKey {
  id: string;
  kind: 'live' | 'restricted';
  prefix: string;
  last4: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabled: boolean;
  /** null: every event. */
  eventTypes: string[] | null;
  createdAt: string;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  createdAt: string;
  attempts: { at: string; statusCode: number | null; durationMs: number; error: string | null }[];
}

// The same lists the server checks against: these modules import nothing, so the bundle takes them as they are.
export { SCOPES } from '../../src/domain/scopes';
export { WEBHOOK_EVENT_TYPES as EVENT_TYPES, TEST_EVENT_TYPE } from '../../src/domain/webhook-event-types';

export interface Site {
  id: string;
  siteUrl: string;
  platform: string;
  pluginVersion: string;
  status: 'pending_verification' | 'connected';
  verifiedAt: string | null;
  createdAt: string;
}

export interface ApiRequest {
  at: string;
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  key: { id: string; shown: string | null };
}

export type Role = Me['user']['role'];
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

export interface Member {
  id: string;
  email: string;
  role: Role;
  emailVerified: boolean;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: { id: string; email: string };
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string;
}
