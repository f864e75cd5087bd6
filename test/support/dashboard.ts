import { hash as argon2Hash } from '@node-rs/argon2';
import { Secret, TOTP } from 'otpauth';
import type { FastifyInstance } from 'fastify';
import { adminHeaders, type TestClock } from './harness';
import type { TestMailbox } from './mail';

/**
 * One browser's view of the dashboard's internal API over app.inject: its cookie jar, the CSRF
 * header the app's script sends, and its client address.
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly app: FastifyInstance,
    readonly ip = '203.0.113.10',
  ) {}

  async call(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
    options: { csrf?: string | null; headers?: Record<string, string> } = {},
  ) {
    if (!this.cookies.has('svc_dash_csrf')) await this.app.inject({ method: 'GET', url: '/dashboard/' }).then((r) => this.keep(r.cookies));
    const csrf = options.csrf === undefined ? this.cookies.get('svc_dash_csrf') : options.csrf;
    const res = await this.app.inject({
      method,
      url: `/dashboard/api${url}`,
      remoteAddress: this.ip,
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(method !== 'GET' && csrf !== null && csrf !== undefined ? { 'x-csrf-token': csrf } : {}),
        ...options.headers,
      },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    this.keep(res.cookies);
    return res;
  }

  private keep(cookies: { name: string; value: string; expires?: Date }[]) {
    for (const c of cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }
}

export const PASSWORD = 'correct horse battery staple';

let ownerCount = 0;

/** Sign-up, the verification mail's link used, and a session: a pending merchant's owner, signed in. */
export async function signedUpOwner(app: FastifyInstance, mailbox: TestMailbox, email: string, name = 'Corner Shop') {
  // An address of their own: a file's sign-ups never meet the per-address sign-up limit together.
  const client = new DashboardClient(app, `198.19.${Math.floor(ownerCount / 250)}.${(ownerCount++ % 250) + 1}`);
  const signUp = await client.call('POST', '/sign-up', { businessName: name, email, password: PASSWORD });
  if (signUp.statusCode !== 201) throw new Error(`sign-up: ${signUp.statusCode} ${signUp.body}`);
  const mail = await mailbox.waitFor(email, /Confirm your email/);
  const token = /verify-email\?token=([A-Za-z0-9]+)/.exec(mail.text)![1]!;
  const verify = await client.call('POST', '/verify-email', { token });
  if (verify.statusCode !== 200) throw new Error(`verify: ${verify.statusCode} ${verify.body}`);
  const signIn = await client.call('POST', '/sign-in', { email, password: PASSWORD });
  if (signIn.statusCode !== 200) throw new Error(`sign-in: ${signIn.statusCode} ${signIn.body}`);
  const me = (await client.call('GET', '/me')).json();
  return { client, merchantId: me.merchant.id as string, token };
}

/** The operator's approval (the admin route the ops CLI calls); answers the live key it issued. */
export async function approve(app: FastifyInstance, merchantId: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: `/admin/v1/merchants/${merchantId}/approve`, headers: adminHeaders });
  if (res.statusCode !== 200) throw new Error(`approve: ${res.statusCode} ${res.body}`);
  return res.json().apiKey;
}

let memberCount = 0;

/**
 * A member of the merchant with this role, signed in. Written straight into the table (as an accepted
 * invitation would leave it), so a test of roles needs no mail round trip per person.
 */
export async function signedInMember(
  app: FastifyInstance,
  sql: import('postgres').Sql,
  merchantId: string,
  email: string,
  role: 'owner' | 'admin' | 'developer' | 'viewer',
): Promise<{ client: DashboardClient; userId: string }> {
  const userId = `usr_${email
    .replace(/[^a-z0-9]/gi, '')
    .slice(0, 16)
    .padEnd(16, '0')}`;
  await sql`insert into dashboard_users (id, merchant_id, email, password_hash, role, email_verified_at)
    values (${userId}, ${merchantId}, ${email}, ${await argon2Hash(PASSWORD)}, ${role}, now())`;
  // An address of their own: one person's sign-ins never count against another's limits.
  const client = new DashboardClient(app, `198.18.${Math.floor(memberCount / 250)}.${(memberCount++ % 250) + 1}`);
  const signIn = await client.call('POST', '/sign-in', { email, password: PASSWORD });
  if (signIn.statusCode !== 200) throw new Error(`sign-in: ${signIn.statusCode} ${signIn.body}`);
  return { client, userId };
}

/**
 * A person's authenticator app: codes as the app shows them, never one the server has seen (a code
 * works once). It hands out the current step's code, then the next step's (the server accepts one
 * step either side); past that the time must reach a step not yet used: with the API's test clock it
 * moves that clock on, else it waits for the real one.
 */
export class Authenticator {
  private lastStep = -1;
  private readonly totp: TOTP;
  constructor(
    readonly secret: string,
    private readonly clock?: TestClock,
  ) {
    this.totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  }
  async code(): Promise<string> {
    const now = () => this.clock?.now().getTime() ?? Date.now();
    for (;;) {
      const current = Math.floor(now() / 30_000);
      const step = Math.max(this.lastStep + 1, current);
      if (step <= current + 1) {
        this.lastStep = step;
        return this.totp.generate({ timestamp: step * 30_000 });
      }
      const untilNextStep = (current + 1) * 30_000 - now() + 20;
      if (this.clock) this.clock.advance(untilNextStep);
      else await new Promise((r) => setTimeout(r, untilNextStep));
    }
  }
}

/** Enrols the signed-in person's second factor and confirms it; answers their app (on `clock`, if given) and recovery codes. */
export async function enrolTwoFactor(client: DashboardClient, clock?: TestClock): Promise<{ app: Authenticator; recoveryCodes: string[] }> {
  const enrol = await client.call('POST', '/two-factor/enroll');
  if (enrol.statusCode !== 200) throw new Error(`enrol: ${enrol.statusCode} ${enrol.body}`);
  const app = new Authenticator(enrol.json().secret, clock);
  const confirm = await client.call('POST', '/two-factor/confirm', { code: await app.code() });
  if (confirm.statusCode !== 200) throw new Error(`confirm: ${confirm.statusCode} ${confirm.body}`);
  return { app, recoveryCodes: confirm.json().recoveryCodes };
}

/** The step-up money-moving and secret-revealing actions ask for: the password, and a code where enrolled. */
export async function stepUp(client: DashboardClient, app?: Authenticator): Promise<void> {
  const res = await client.call('POST', '/step-up', { password: PASSWORD, ...(app ? { code: await app.code() } : {}) });
  if (res.statusCode !== 200) throw new Error(`step-up: ${res.statusCode} ${res.body}`);
}

/** An owner as the step-up routes want them: a second factor enrolled, and stepped up just now. */
export async function secureOwner(client: DashboardClient): Promise<Authenticator> {
  const { app } = await enrolTwoFactor(client);
  await stepUp(client, app);
  return app;
}
