import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { approve, enrolTwoFactor, PASSWORD, signedInMember, signedUpOwner, stepUp, type Authenticator } from '../support/dashboard';
import { startTestWorker, useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';
import { connectBody, markSiteVerified, pluginConnect } from '../support/plugin-sites';
import { seedBalance } from '../support/seed-balance';

// Every change a person makes through the dashboard is a line of the audit log: the routes that can
// change something are read from the running app itself, so a write route added later, without a
// line or a case here, fails this test. Each is called once, successfully, by a signed-in owner with
// a second factor and a step-up, and must leave a new line naming that owner (who), the action
// (what) and, where something had a value before, the value before and after.

const PREFIX = '/dashboard/api';
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The app's own routes for these methods, as "METHOD /path" with their :params. Fastify lists them
 * only as a tree (a child's line holds its own part of the path), so the lines are put back together.
 */
function writeRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  for (const method of WRITE_METHODS) {
    const parents: string[] = [];
    for (const line of app.printRoutes({ method, commonPrefix: false }).split('\n')) {
      const node = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([^)]*)\))?$/.exec(line);
      if (!node) continue;
      const depth = node[1]!.length / 4;
      const path = (parents[depth - 1] ?? '') + node[2]!;
      parents.length = depth;
      parents.push(path);
      if (node[3]?.split(', ').includes(method)) routes.push(`${method} ${path}`);
    }
  }
  return routes.filter((r) => r.split(' ')[1]!.startsWith(`${PREFIX}/`)).sort();
}

/**
 * Write routes with no signed-in merchant person to name, each with what it writes instead. Their
 * lines, where they have one, are tested where the flow is (audit.test.ts, password.test.ts,
 * sign-in-limits.test.ts).
 */
const NO_PERSON: Record<string, string> = {
  // No account exists until the address is confirmed, and an anonymous request names nobody.
  'POST /dashboard/api/sign-up': 'none',
  'POST /dashboard/api/verify-email': 'none',
  // A line per request would let anyone fill a merchant's log; the reset itself is audited.
  'POST /dashboard/api/forgot-password': 'none',
  'POST /dashboard/api/reset-password': 'password.reset',
  'POST /dashboard/api/sign-in': 'session.signed_in, or sign_in.paused when its limits pause the account',
  // Reads the invitation; changes nothing.
  'POST /dashboard/api/invitations/preview': 'none',
  'POST /dashboard/api/invitations/accept': 'invitation.accepted',
};

/**
 * Signed-in write routes that legitimately write no line, and why. Keep this short: a route belongs
 * here only when it changes nothing a person could be asked about.
 */
const NO_LINE: Record<string, string> = {
  // Stores a secret not yet in force: nothing changes for sign-in until /two-factor/confirm, whose
  // line (two_factor.enabled) is the change; an abandoned enrolment is replaced by the next.
  'POST /dashboard/api/two-factor/enroll': 'nothing in force until confirmed',
};

/**
 * Routes whose one successful call needs money really paid on chain (a deposit address holding a
 * customer's transfer, the exception's run on a worker); they are audited by their use cases and
 * their lines asserted in the end-to-end file named.
 */
const AUDITED_ON_CHAIN: Record<string, string> = {
  'POST /dashboard/api/payments/:id/exceptions/:exceptionId/refund': 'exception_refund.requested (payment-page.test.ts)',
};

interface Entry {
  id: number;
  actor: { id: string; email: string };
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
}

interface Expected {
  action: string;
  target?: string | null;
  /** A subset of the line's details: for a change of a value, what it was and what it is. */
  details?: Record<string, unknown>;
}

describe('dashboard audit coverage', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('finds the write routes in the running app', () => {
    const routes = writeRoutes(ctx.app);
    // The parse puts nested paths back together: a route under a parameter and one under a static part.
    expect(routes).toContain('POST /dashboard/api/team/:userId/role');
    expect(routes).toContain('DELETE /dashboard/api/team/invitations/:invitationId');
    expect(routes).toContain('POST /dashboard/api/wallets');
    // No listed route is one the app does not have.
    for (const route of [...Object.keys(NO_PERSON), ...Object.keys(NO_LINE), ...Object.keys(AUDITED_ON_CHAIN)]) {
      expect(routes, route).toContain(route);
    }
  });

  it('writes a line naming the owner, the action and the change for every write route', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'coverage-owner@example.com', 'Coverage Shop');
    await approve(ctx.app, merchantId);
    const me = (await owner.call('GET', '/me')).json().user as { id: string; email: string };
    let authenticator: Authenticator | undefined;
    let password = PASSWORD;
    let lastId = Math.max(0, ...((await owner.call('GET', '/audit-log')).json().entries as Entry[]).map((e) => e.id));

    const member = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'coverage-member@example.com', 'developer');
    const seeded = await seedBalance(ctx.db.db, merchantId, { paid: 0, available: 1, payoutAt: new Date() });
    const WALLET_A = '0x52908400098527886E0F7030069857D2E4169EE7';
    const WALLET_B = '0x' + '4'.repeat(40);
    // Filled in by earlier cases for later ones.
    const ids: Record<string, string> = {};

    const ok = async (method: 'POST' | 'DELETE', url: string, body?: unknown) => {
      const res = await owner.call(method, url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(300);
      return res.json();
    };

    // In an order each can succeed in: the second factor and the step-up first, the session's end last.
    const cases: { route: string; run: () => Promise<Expected> }[] = [
      {
        // Enrolment writes no line of its own (NO_LINE): the confirmation's is the change.
        route: 'POST /two-factor/confirm',
        run: async () => {
          const enrolled = await enrolTwoFactor(owner, ctx.clock);
          authenticator = enrolled.app;
          return { action: 'two_factor.enabled' };
        },
      },
      {
        route: 'POST /step-up',
        run: async () => {
          await stepUp(owner, authenticator);
          return { action: 'session.stepped_up' };
        },
      },
      {
        route: 'POST /wallets',
        run: async () => {
          await ok('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: WALLET_A });
          return { action: 'wallet.changed', details: { asset: 'USDC', network: 'polygon', from: null, to: WALLET_A } };
        },
      },
      {
        // The same route again: a wallet that had an address names it as the one before.
        route: 'POST /wallets',
        run: async () => {
          const wallet = (await ok('POST', '/wallets', { asset: 'USDC', network: 'polygon', address: WALLET_B })).wallet;
          return { action: 'wallet.changed', details: { asset: 'USDC', network: 'polygon', from: WALLET_A, to: wallet.address } };
        },
      },
      {
        route: 'POST /payment-links',
        run: async () => {
          const { link } = await ok('POST', '/payment-links', {
            amount: 12.5,
            currency: 'USD',
            destinationAsset: 'USDC',
            network: 'polygon',
          });
          ids.link = link.id;
          return {
            action: 'payment_link.created',
            target: link.id,
            details: { amount: '12.50', currency: 'USD', asset: 'USDC', network: 'polygon' },
          };
        },
      },
      {
        route: 'POST /payment-links/:linkId/deactivate',
        run: async () => {
          await ok('POST', `/payment-links/${ids.link}/deactivate`);
          return { action: 'payment_link.deactivated', target: ids.link!, details: { from: 'active', to: 'expired' } };
        },
      },
      {
        route: 'POST /payout-settings',
        run: async () => {
          const was = (await owner.call('GET', '/payout-settings')).json();
          expect(was.schedule).not.toBe('weekly');
          await ok('POST', '/payout-settings', { schedule: 'weekly', minimum: '25' });
          return {
            action: 'payout_settings.changed',
            details: { schedule: 'weekly', minimum: '25.000000', was: { schedule: was.schedule, minimum: was.minimum } },
          };
        },
      },
      {
        route: 'POST /payout-settings/request',
        run: async () => {
          await ok('POST', '/payout-settings/request');
          return { action: 'payout.requested' };
        },
      },
      {
        route: 'POST /payments/:id/refunds',
        run: async () => {
          const paymentId = seeded.available[0]!;
          // Proven on chain, as only such a payment is refunded on chain; the deposit address is nobody's.
          await ctx.db.sql`update checkout_sessions set verification = 'chain', deposit_address = ${'0x' + '7'.repeat(40)}
            where id = ${paymentId}`;
          // The refund's run writes the row and its line: a worker for it alone, without the chain watchers.
          const worker = await startTestWorker(ctx, { watch: false });
          const { refund } = await ok('POST', `/payments/${paymentId}/refunds`, { amount: '1', address: WALLET_A });
          // Its transfer is not this file's subject: the run is ended rather than left on the shared server.
          await ctx.temporal.workflow.getHandle(refund.id).terminate('audit coverage: only the request is under test');
          await worker.shutdown();
          return { action: 'refund.requested', target: refund.id, details: { paymentId, amount: '1.000000', address: WALLET_A } };
        },
      },
      {
        route: 'POST /api-keys/live/reveal',
        run: async () => {
          await ok('POST', '/api-keys/live/reveal');
          return { action: 'live_key.revealed' };
        },
      },
      {
        route: 'POST /api-keys/live/rotate',
        run: async () => {
          ids.apiKey = (await ok('POST', '/api-keys/live/rotate')).apiKey;
          return { action: 'live_key.rotated' };
        },
      },
      {
        route: 'POST /api-keys',
        run: async () => {
          const { key } = await ok('POST', '/api-keys', { scopes: ['transactions:read'] });
          ids.key = key.id;
          return { action: 'api_key.created', target: key.id, details: { scopes: ['transactions:read'] } };
        },
      },
      {
        route: 'POST /api-keys/:keyId/revoke',
        run: async () => {
          await ok('POST', `/api-keys/${ids.key}/revoke`);
          return { action: 'api_key.revoked', target: ids.key! };
        },
      },
      {
        route: 'POST /security-code/rotate',
        run: async () => {
          ids.securityCode = (await ok('POST', '/security-code/rotate')).securityCode;
          return { action: 'security_code.rotated' };
        },
      },
      {
        route: 'POST /sites/:siteId/disconnect',
        run: async () => {
          const plugin = { id: merchantId, apiKey: ids.apiKey!, securityCode: ids.securityCode! };
          const connect = await pluginConnect(ctx.app, connectBody(plugin));
          expect(connect.statusCode, connect.body).toBeLessThan(300);
          const [site] = (await owner.call('GET', '/sites')).json().sites;
          await markSiteVerified(ctx.db, site.id);
          await ok('POST', `/sites/${site.id}/disconnect`);
          return { action: 'site.disconnected', target: site.id, details: { siteUrl: site.siteUrl } };
        },
      },
      {
        route: 'POST /webhook-endpoints',
        run: async () => {
          const { endpoint } = await ok('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/coverage' });
          ids.endpoint = endpoint.id;
          return { action: 'webhook_endpoint.created', target: endpoint.id, details: { url: 'http://127.0.0.1:9/coverage' } };
        },
      },
      {
        route: 'POST /webhook-endpoints/:endpointId/roll-secret',
        run: async () => {
          await ok('POST', `/webhook-endpoints/${ids.endpoint}/roll-secret`);
          return { action: 'webhook_endpoint.secret_rolled', target: ids.endpoint! };
        },
      },
      {
        route: 'POST /webhook-endpoints/:endpointId/disable',
        run: async () => {
          await ok('POST', `/webhook-endpoints/${ids.endpoint}/disable`);
          return { action: 'webhook_endpoint.disabled', target: ids.endpoint! };
        },
      },
      {
        route: 'POST /webhook-endpoints/:endpointId/enable',
        run: async () => {
          await ok('POST', `/webhook-endpoints/${ids.endpoint}/enable`);
          return { action: 'webhook_endpoint.enabled', target: ids.endpoint! };
        },
      },
      {
        route: 'POST /webhook-endpoints/:endpointId/test',
        run: async () => {
          await ok('POST', `/webhook-endpoints/${ids.endpoint}/test`);
          return { action: 'webhook_endpoint.test_sent', target: ids.endpoint! };
        },
      },
      {
        route: 'POST /webhook-deliveries/:deliveryId/resend',
        run: async () => {
          const [delivery] = (await owner.call('GET', '/webhook-deliveries')).json().deliveries;
          await ok('POST', `/webhook-deliveries/${delivery.id}/resend`);
          return { action: 'webhook_delivery.resent', target: delivery.id };
        },
      },
      {
        route: 'DELETE /webhook-endpoints/:endpointId',
        run: async () => {
          await ok('DELETE', `/webhook-endpoints/${ids.endpoint}`);
          return { action: 'webhook_endpoint.deleted', target: ids.endpoint! };
        },
      },
      {
        route: 'POST /team/invitations',
        run: async () => {
          const { invitation } = await ok('POST', '/team/invitations', { email: 'coverage-invited@example.com', role: 'viewer' });
          ids.invitation = invitation.id;
          return { action: 'invitation.sent', target: invitation.id, details: { email: 'coverage-invited@example.com', role: 'viewer' } };
        },
      },
      {
        route: 'DELETE /team/invitations/:invitationId',
        run: async () => {
          await ok('DELETE', `/team/invitations/${ids.invitation}`);
          return { action: 'invitation.withdrawn', target: ids.invitation! };
        },
      },
      {
        route: 'POST /team/:userId/role',
        run: async () => {
          await ok('POST', `/team/${member.userId}/role`, { role: 'viewer' });
          return { action: 'member.role_changed', target: member.userId, details: { from: 'developer', to: 'viewer' } };
        },
      },
      {
        route: 'DELETE /team/:userId',
        run: async () => {
          await ok('DELETE', `/team/${member.userId}`);
          return { action: 'member.removed', target: member.userId };
        },
      },
      {
        route: 'POST /password',
        run: async () => {
          password = 'coverage password two';
          await ok('POST', '/password', { currentPassword: PASSWORD, newPassword: password });
          return { action: 'password.changed' };
        },
      },
      {
        route: 'POST /two-factor/disable',
        run: async () => {
          await ok('POST', '/two-factor/disable', { password, code: await authenticator!.code() });
          return { action: 'two_factor.disabled' };
        },
      },
      {
        route: 'POST /sign-out-everywhere',
        run: async () => {
          await ok('POST', '/sign-out-everywhere');
          await signIn();
          return { action: 'sessions.ended_everywhere' };
        },
      },
      {
        route: 'POST /sign-out',
        run: async () => {
          await ok('POST', '/sign-out');
          await signIn();
          return { action: 'session.signed_out' };
        },
      },
    ];

    /** Back in, to read the log: its session.signed_in line is after the one checked. */
    async function signIn() {
      const res = await owner.call('POST', '/sign-in', { email: me.email, password });
      expect(res.statusCode, res.body).toBe(200);
    }

    const checked = new Set<string>();
    for (const c of cases) {
      const expected = await c.run();
      const entries = ((await owner.call('GET', '/audit-log')).json().entries as Entry[]).filter((e) => e.id > lastId).reverse();
      const line = entries.find((e) => e.action === expected.action);
      expect(line, `${c.route}: a ${expected.action} line among ${entries.map((e) => e.action).join(', ')}`).toBeDefined();
      expect(line!.actor, c.route).toEqual({ id: me.id, email: me.email });
      if (expected.target !== undefined) expect(line!.target, c.route).toBe(expected.target);
      if (expected.details) expect(line!.details, c.route).toMatchObject(expected.details);
      lastId = Math.max(...entries.map((e) => e.id));
      checked.add(`${c.route.split(' ')[0]} ${PREFIX}${c.route.split(' ')[1]}`);
    }

    // Every write route is a case above or listed, with its reason, in one of the lists.
    const listed = new Set([...checked, ...Object.keys(NO_PERSON), ...Object.keys(NO_LINE), ...Object.keys(AUDITED_ON_CHAIN)]);
    const routes = writeRoutes(ctx.app);
    expect(
      routes.filter((r) => !listed.has(r)),
      'write routes with neither a case nor a reason',
    ).toEqual([]);
    expect(
      [...listed].filter((r) => !routes.includes(r)),
      'cases for routes the app does not have',
    ).toEqual([]);
  });
});
