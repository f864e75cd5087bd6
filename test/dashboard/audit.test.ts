import { describe, expect, it } from 'vitest';
import { approve, DashboardClient, secureOwner, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

/** RFC 4180 as a spreadsheet reads it: quoted cells, doubled quotes, CRLF line ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

interface Entry {
  id: number;
  at: string;
  actor: { id: string; email: string };
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string;
}

// Every action a person takes in the dashboard is in the audit log (who, what, when, from
// where; never a secret), written with the change itself; owners read it and export it as CSV.
describe('dashboard audit log', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('records who did what from where, without secrets, and nothing for a change that failed', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'audit-owner@example.com', 'Audited Shop');
    await approve(ctx.app, merchantId);
    await secureOwner(owner);
    const secrets: string[] = [];
    secrets.push((await owner.call('POST', '/api-keys/live/reveal')).json().apiKey);
    const restricted = (await owner.call('POST', '/api-keys', { scopes: ['transactions:read'] })).json();
    secrets.push(restricted.apiKey);
    secrets.push((await owner.call('POST', '/security-code/rotate')).json().securityCode);
    const hook = (await owner.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/audit' })).json();
    secrets.push(hook.secret);
    secrets.push((await owner.call('POST', `/webhook-endpoints/${hook.endpoint.id}/roll-secret`)).json().secret);
    await owner.call('POST', `/webhook-endpoints/${hook.endpoint.id}/disable`);
    await owner.call('POST', `/api-keys/${restricted.key.id}/revoke`);
    // Refused: nothing changed, so nothing to record.
    expect((await owner.call('POST', '/api-keys/key_0000000000000000/revoke')).statusCode).toBe(404);
    const invitation = (await owner.call('POST', '/team/invitations', { email: 'audit-dev@example.com', role: 'developer' })).json()
      .invitation;
    const token = /token=([A-Za-z0-9]+)/.exec((await mailbox.waitFor('audit-dev@example.com', /invited/)).text)![1]!;
    secrets.push(token);
    const dev = new DashboardClient(ctx.app, '198.51.100.77');
    expect((await dev.call('POST', '/invitations/accept', { token, password: 'developer password 1' })).statusCode).toBe(201);
    await dev.call('POST', '/sign-in', { email: 'audit-dev@example.com', password: 'developer password 1' });
    const devId = (await dev.call('GET', '/me')).json().user.id;
    await owner.call('POST', `/team/${devId}/role`, { role: 'viewer' });

    const res = await owner.call('GET', '/audit-log');
    expect(res.statusCode).toBe(200);
    for (const secret of secrets) expect(res.body).not.toContain(secret);
    const entries: Entry[] = res.json().entries;
    expect(entries.map((e) => [e.action, e.actor.email, e.ip]).reverse()).toEqual([
      ['session.signed_in', 'audit-owner@example.com', owner.ip],
      ['two_factor.enabled', 'audit-owner@example.com', owner.ip],
      ['session.stepped_up', 'audit-owner@example.com', owner.ip],
      ['live_key.revealed', 'audit-owner@example.com', owner.ip],
      ['api_key.created', 'audit-owner@example.com', owner.ip],
      ['security_code.rotated', 'audit-owner@example.com', owner.ip],
      ['webhook_endpoint.created', 'audit-owner@example.com', owner.ip],
      ['webhook_endpoint.secret_rolled', 'audit-owner@example.com', owner.ip],
      ['webhook_endpoint.disabled', 'audit-owner@example.com', owner.ip],
      ['api_key.revoked', 'audit-owner@example.com', owner.ip],
      ['invitation.sent', 'audit-owner@example.com', owner.ip],
      ['invitation.accepted', 'audit-dev@example.com', dev.ip],
      ['session.signed_in', 'audit-dev@example.com', dev.ip],
      ['member.role_changed', 'audit-owner@example.com', owner.ip],
    ]);
    const byAction = (a: string) => entries.find((e) => e.action === a)!;
    expect(byAction('api_key.created')).toMatchObject({ target: restricted.key.id, details: { scopes: ['transactions:read'] } });
    expect(byAction('member.role_changed')).toMatchObject({ target: devId, details: { from: 'developer', to: 'viewer' } });
    expect(byAction('invitation.sent')).toMatchObject({
      target: invitation.id,
      details: { email: 'audit-dev@example.com', role: 'developer' },
    });
    expect(Date.now() - Date.parse(entries[0]!.at)).toBeLessThan(60_000);

    // The viewer, and any admin, do not read it (roles.test.ts covers every role).
    expect((await dev.call('GET', '/audit-log')).statusCode).toBe(403);
    const other = await signedUpOwner(ctx.app, mailbox, 'audit-other@example.com');
    const theirs: Entry[] = (await other.client.call('GET', '/audit-log')).json().entries;
    expect(theirs.map((e) => e.actor.email)).toEqual(['audit-other@example.com']);
  });

  it('exports the log as CSV, every cell escaped as spreadsheets read it', async () => {
    const { client: owner } = await signedUpOwner(ctx.app, mailbox, 'csv-owner@example.com', 'CSV Shop');
    const merchantId = (await owner.call('GET', '/me')).json().merchant.id;
    await owner.call('POST', '/team/invitations', { email: 'csv-viewer@example.com', role: 'viewer' });
    // What no route writes today but a cell could hold: a formula, quotes, commas, a line break.
    await ctx.db.sql`insert into dashboard_audit_log (merchant_id, actor_user_id, actor_email, action, target, details, ip)
      values (${merchantId}, 'usr_x', 'a,b@example.com', 'member.removed', '=HYPERLINK("http://evil.example")',
              ${JSON.stringify({ note: 'said "hi",\r\nthen left' })}::jsonb, '192.0.2.1')`;
    const res = await owner.call('GET', '/audit-log.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit-log-MER_\w+\.csv"$/);
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual(['time', 'actor_email', 'actor_id', 'action', 'target', 'details', 'ip']);
    const entries: Entry[] = (await owner.call('GET', '/audit-log')).json().entries;
    // Each cell is the JSON answer's value; one a spreadsheet would run as a formula starts with an apostrophe.
    const defused = (v: string) => (/^[=+\-@]/.test(v) ? `'${v}` : v);
    expect(rows.slice(1)).toEqual(
      entries.map((e) => [
        e.at,
        e.actor.email,
        e.actor.id,
        e.action,
        defused(e.target ?? ''),
        e.details ? JSON.stringify(e.details) : '',
        e.ip,
      ]),
    );
    expect(rows.map((r) => r[3])).toEqual(['action', 'member.removed', 'invitation.sent', 'session.signed_in']);
    expect(rows[1]!.slice(1, 2).concat(rows[1]![4]!, JSON.parse(rows[1]![5]!).note)).toEqual([
      'a,b@example.com',
      `'=HYPERLINK("http://evil.example")`,
      'said "hi",\r\nthen left',
    ]);
  });
});
