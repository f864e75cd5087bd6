import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import dashboardApi, { type DashboardApiOptions } from '../../src/api/dashboard/api';
import { DASHBOARD_ROLES, type DashboardRole } from '../../src/domain/dashboard-roles';
import { approve, DashboardClient, secureOwner, signedInMember, signedUpOwner, stepUp } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// Least privilege: every dashboard route, called by each
// role and by no one, answers as the roles table says. The expectations are written out here rather
// than read from src/domain/dashboard-roles.ts, so a change of the table has to change this test too.

type Who = DashboardRole | 'anonymous';
const WHO: readonly Who[] = [...DASHBOARD_ROLES, 'anonymous'];

/** o = owner, a = admin, d = developer, v = viewer: the roles let through; `ok` their answer. */
interface Row {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  allowed: string;
  ok: number[];
  body?: unknown;
}

const NO_KEY = 'key_0000000000000000';
const NO_HOOK = 'we_0000000000000000';
const NO_DELIVERY = 'dlv_000000000000000000000000';
const NO_SITE = 'site_0000000000000000';
const NO_USER = 'usr_0000000000000000';
const NO_INVITATION = 'inv_0000000000000000';
const NO_PAYMENT = 'SV_000000000000000000000000';
const NO_EXCEPTION = 'exc_000000000000000000000000';
const NO_LINK = 'plink_000000000000000000000000';
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

// Ids that name nothing answer 404 to those let through: the route ran past its role check, and
// nothing changed. Creations are real (they change the merchant only) and answer 201.
const MATRIX: Row[] = [
  { method: 'GET', url: '/me', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: '/api-keys', allowed: 'oad', ok: [200] },
  { method: 'POST', url: '/api-keys', allowed: 'oad', ok: [201], body: { scopes: ['transactions:read'] } },
  { method: 'POST', url: `/api-keys/${NO_KEY}/revoke`, allowed: 'oad', ok: [404] },
  // Shown once: the first role let through sees it, the next are told it was shown.
  { method: 'POST', url: '/api-keys/live/reveal', allowed: 'oad', ok: [200, 409] },
  { method: 'POST', url: '/api-keys/live/rotate', allowed: 'oad', ok: [200] },
  { method: 'POST', url: '/security-code/rotate', allowed: 'oad', ok: [200] },
  { method: 'GET', url: '/webhook-endpoints', allowed: 'oad', ok: [200] },
  { method: 'POST', url: '/webhook-endpoints', allowed: 'oad', ok: [201], body: { url: 'http://127.0.0.1:9/roles' } },
  { method: 'POST', url: `/webhook-endpoints/${NO_HOOK}/roll-secret`, allowed: 'oad', ok: [404] },
  { method: 'POST', url: `/webhook-endpoints/${NO_HOOK}/enable`, allowed: 'oad', ok: [404] },
  { method: 'POST', url: `/webhook-endpoints/${NO_HOOK}/disable`, allowed: 'oad', ok: [404] },
  { method: 'POST', url: `/webhook-endpoints/${NO_HOOK}/test`, allowed: 'oad', ok: [404] },
  { method: 'DELETE', url: `/webhook-endpoints/${NO_HOOK}`, allowed: 'oad', ok: [404] },
  { method: 'GET', url: '/webhook-deliveries', allowed: 'oad', ok: [200] },
  { method: 'POST', url: `/webhook-deliveries/${NO_DELIVERY}/resend`, allowed: 'oad', ok: [404] },
  { method: 'GET', url: '/sites', allowed: 'oad', ok: [200] },
  { method: 'POST', url: `/sites/${NO_SITE}/disconnect`, allowed: 'oad', ok: [404] },
  { method: 'GET', url: '/request-log', allowed: 'oad', ok: [200] },
  { method: 'GET', url: '/team', allowed: 'oa', ok: [200] },
  { method: 'POST', url: `/team/${NO_USER}/role`, allowed: 'oa', ok: [404], body: { role: 'viewer' } },
  { method: 'DELETE', url: `/team/${NO_USER}`, allowed: 'oa', ok: [404] },
  { method: 'GET', url: '/team/invitations', allowed: 'oa', ok: [200] },
  { method: 'GET', url: '/audit-log', allowed: 'o', ok: [200] },
  { method: 'GET', url: '/audit-log.csv', allowed: 'o', ok: [200] },
  { method: 'POST', url: '/team/invitations', allowed: 'oa', ok: [201], body: { email: 'matrix-invited@example.com', role: 'viewer' } },
  { method: 'DELETE', url: `/team/invitations/${NO_INVITATION}`, allowed: 'oa', ok: [404] },
  // Part 2: payments, links and money.
  { method: 'GET', url: '/payments', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: '/payments.csv', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: `/payments/${NO_PAYMENT}`, allowed: 'oadv', ok: [404] },
  { method: 'GET', url: `/payments/${NO_PAYMENT}/proof`, allowed: 'oadv', ok: [404] },
  { method: 'POST', url: `/payments/${NO_PAYMENT}/exceptions/${NO_EXCEPTION}/refund`, allowed: 'oa', ok: [404], body: {} },
  { method: 'POST', url: `/payments/${NO_PAYMENT}/refunds`, allowed: 'oa', ok: [404], body: { amount: '1' } },
  { method: 'GET', url: '/payment-links', allowed: 'oadv', ok: [200] },
  // No wallet for the link's asset yet: past the role check, the link itself is refused.
  {
    method: 'POST',
    url: '/payment-links',
    allowed: 'oad',
    ok: [201, 409, 422],
    body: { amount: 10, currency: 'USD', destinationAsset: 'USDC', network: 'polygon' },
  },
  { method: 'GET', url: `/payment-links/${NO_LINK}`, allowed: 'oadv', ok: [404] },
  { method: 'POST', url: `/payment-links/${NO_LINK}/deactivate`, allowed: 'oad', ok: [404] },
  { method: 'GET', url: '/wallets', allowed: 'oadv', ok: [200] },
  { method: 'POST', url: '/wallets', allowed: 'oa', ok: [200], body: { asset: 'USDC', network: 'polygon', address: WALLET } },
  { method: 'GET', url: '/payout-settings', allowed: 'oadv', ok: [200] },
  { method: 'POST', url: '/payout-settings', allowed: 'oa', ok: [200], body: { schedule: 'daily', minimum: '25' } },
  { method: 'POST', url: '/payout-settings/request', allowed: 'oa', ok: [200] },
  { method: 'GET', url: '/payouts', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: '/payouts.csv', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: '/settlements', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: '/settlements.csv', allowed: 'oadv', ok: [200] },
  { method: 'GET', url: '/home', allowed: 'oadv', ok: [200] },
  // Last: it signs each person out.
  { method: 'POST', url: '/sign-out-everywhere', allowed: 'oadv', ok: [200] },
];

// Routes anyone may call (their own checks are tested in accounts.test.ts), and the internal API's
// catch-all 404.
const OPEN = new Set([
  'POST /sign-up',
  'POST /verify-email',
  'POST /sign-in',
  'POST /sign-out',
  'POST /step-up',
  'POST /invitations/preview',
  'POST /invitations/accept',
  'POST /forgot-password',
  'POST /reset-password',
]);
// Every person's own second factor: each role has one (account.security), tested in two-factor.test.ts.
// Their own password too (account.security), tested in password.test.ts.
const OWN = new Set(['POST /two-factor/enroll', 'POST /two-factor/confirm', 'POST /two-factor/disable', 'POST /password']);

/**
 * Every route the dashboard's internal API registers, as "METHOD /path" with its :params: the plugin
 * registered on an app of its own that only records routes (no handler runs).
 */
async function registeredRoutes(): Promise<string[]> {
  const probe = Fastify();
  probe.setValidatorCompiler(validatorCompiler);
  probe.setSerializerCompiler(serializerCompiler);
  const routes: string[] = [];
  probe.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${route.url}`);
  });
  // No service is called while routes register: an empty set of options does.
  await probe.register(dashboardApi, { secureCookies: false } as unknown as DashboardApiOptions);
  await probe.ready();
  await probe.close();
  return routes.sort();
}

describe('dashboard roles', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('covers every dashboard route', async () => {
    const pattern = (url: string) =>
      url
        .replace(/key_0+/, ':keyId')
        .replace(/we_0+/, ':endpointId')
        .replace(/dlv_0+/, ':deliveryId')
        .replace(/site_0+/, ':siteId')
        .replace(/usr_0+/, ':userId')
        .replace(/inv_0+/, ':invitationId')
        .replace(/SV_0+/, ':id')
        .replace(/exc_0+/, ':exceptionId')
        .replace(/plink_0+/, ':linkId');
    const covered = [...MATRIX.map((r) => `${r.method} ${pattern(r.url)}`), ...OPEN, ...OWN].sort();
    const registered = await registeredRoutes();
    expect(registered.length).toBeGreaterThan(20);
    expect(covered).toEqual(registered);
  });

  it('answers each role as the roles table says, on every route', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'matrix-owner@example.com');
    await approve(ctx.app, merchantId);
    const clients: Record<Who, DashboardClient> = {
      owner,
      admin: (await signedInMember(ctx.app, ctx.db.sql, merchantId, 'matrix-admin@example.com', 'admin')).client,
      developer: (await signedInMember(ctx.app, ctx.db.sql, merchantId, 'matrix-dev@example.com', 'developer')).client,
      viewer: (await signedInMember(ctx.app, ctx.db.sql, merchantId, 'matrix-viewer@example.com', 'viewer')).client,
      anonymous: new DashboardClient(ctx.app, '198.51.100.99'),
    };
    // Every person stepped up (the owner with a second factor), so that what is tested here is the
    // role; the step-up itself is tested in two-factor.test.ts.
    await secureOwner(owner);
    for (const who of ['admin', 'developer', 'viewer'] as const) await stepUp(clients[who]);
    const table: Record<string, Record<Who, number>> = {};
    for (const row of MATRIX) {
      for (const who of WHO) {
        const res = await clients[who].call(row.method, row.url, row.body);
        (table[`${row.method} ${row.url}`] ??= {} as Record<Who, number>)[who] = res.statusCode;
        const label = `${who}: ${row.method} ${row.url} → ${res.statusCode} ${res.body.slice(0, 120)}`;
        if (who === 'anonymous') {
          expect(res.statusCode, label).toBe(401);
          expect(res.json().error, label).toBe('Unauthorized');
        } else if (row.allowed.includes(who[0]!)) {
          expect(row.ok, label).toContain(res.statusCode);
        } else {
          expect(res.statusCode, label).toBe(403);
          expect(res.json(), label).toMatchObject({ ok: false, error: 'Forbidden' });
        }
        // A refused caller's answer carries no secret of any kind.
        if (res.statusCode >= 400) expect(res.body, label).not.toMatch(/sk_(live|test)_|whsec_|"secret"|"apiKey"/);
      }
    }
    // The table as a whole, for a reader of a failure.
    expect(Object.keys(table)).toHaveLength(MATRIX.length);
  });
});
