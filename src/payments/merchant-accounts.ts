import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Config } from '../config';
import type { Database, DatabaseOrTransaction } from '../db/client';
import {
  deleteExpiredSessions,
  deleteUserSessions,
  deleteSession,
  findDashboardUserByEmail,
  findSession,
  insertDashboardUser,
  insertEmailToken,
  insertSession,
  markSteppedUp,
  markEmailVerified,
  useEmailToken,
} from '../db/queries/dashboard';
import { AppError } from '../domain/errors';
import { randomBase62 } from '../domain/ids';
import type { Mailer } from '../mail/mailer';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { openMerchant } from './merchant-credentials';
import { checkSecondFactor } from './two-factor';

// Decisions §14: merchants sign up in the dashboard (a merchant pending review and its owner), confirm
// their email address, and sign in to a server-side session. Passwords are argon2id hashes
// (@node-rs/argon2's defaults: 19 MiB, 2 passes, OWASP's recommended minimum); session and email
// tokens are 256-bit random values stored as SHA-256 hashes.

/** A session lasts this long from sign-in, then the person signs in again. */
export const SESSION_TTL_SECONDS = 12 * 3600;
const VERIFY_TOKEN_TTL_MS = 24 * 3600 * 1000;

export type DashboardSession = NonNullable<Awaited<ReturnType<typeof findSession>>>;

const actor = (
  person: { userId: string; email: string; role: DashboardActor['role']; merchantId: string },
  ip: string,
): DashboardActor => ({ ...person, ip });

export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

// Checked against when the email is unknown, so that an unknown address costs the same time as a
// wrong password and the answer's timing does not tell which accounts exist.
let decoyHash: Promise<string> | undefined;

export interface AccountDeps {
  db: Database;
  config: Pick<Config, 'secretsKey' | 'mail' | 'http'>;
  mailer: Mailer;
}

export function createMerchantAccounts({ db, config, mailer }: AccountDeps) {
  const dashboardUrl = `${config.http.publicBaseUrl}/dashboard`;

  async function sendVerification(userId: string, email: string) {
    const token = randomBase62(43);
    await insertEmailToken(db, {
      tokenHash: tokenHash(token),
      userId,
      purpose: 'verify_email',
      expiresAt: new Date(Date.now() + VERIFY_TOKEN_TTL_MS),
    });
    const link = `${dashboardUrl}/verify-email?token=${token}`;
    await mailer.send(
      email,
      'Confirm your email address',
      `Welcome. Open this link to confirm your email address for the merchant dashboard:\n\n${link}\n\nThe link works for 24 hours. If you did not sign up, ignore this mail.`,
    );
  }

  return {
    /**
     * A new merchant (pending review) and its owner. An address already signed up gets a notice
     * instead, and the caller the same answer, so sign-up does not tell who has an account.
     */
    async signUp(input: { businessName: string; email: string; password: string }): Promise<void> {
      if (!config.mail.smtpUrl) throw new AppError('Unavailable', 'Sign-up needs mail, and no SMTP_URL is configured.');
      const email = normalizeEmail(input.email);
      const passwordHash = await argon2Hash(input.password);
      const existing = await findDashboardUserByEmail(db, email);
      if (existing) {
        await mailer.send(
          email,
          'Someone tried to sign up with your email address',
          `Your email address already has a merchant dashboard account. Sign in at ${dashboardUrl}/sign-in.\n\nIf this was not you, you need do nothing.`,
        );
        return;
      }
      const user = await db.transaction(async (tx) => {
        // The security code and default webhook secret are made now and never shown: the merchant
        // rotates them in the dashboard to get values of their own (each shown once).
        const { merchant } = await openMerchant(tx, config.secretsKey, { name: input.businessName, commissionBps: 100 });
        return insertDashboardUser(tx, {
          id: `usr_${randomBase62(16)}`,
          merchantId: merchant.id,
          email,
          passwordHash,
          role: 'owner',
        });
      });
      await sendVerification(user.id, email);
    },

    async verifyEmail(token: string): Promise<void> {
      const userId = await useEmailToken(db, tokenHash(token), 'verify_email');
      if (!userId) throw new AppError('ValidationError', 'This link has expired or was used already. Sign in to get a new one.');
      await markEmailVerified(db, userId);
    },

    /**
     * Checks the password and opens a new session; the session the browser held before (if any) is
     * ended, so a token planted before sign-in is worth nothing after it. Runs in the rate limit's
     * transaction: `Unauthorized` counts as a failure there.
     */
    async signIn(
      tx: DatabaseOrTransaction,
      input: { email: string; password: string; code?: string | undefined; ip: string; previousToken: string | null },
    ): Promise<{ token: string; expiresAt: Date }> {
      const user = await findDashboardUserByEmail(tx, normalizeEmail(input.email));
      const passwordOk = user
        ? await argon2Verify(user.passwordHash, input.password)
        : await argon2Verify(await (decoyHash ??= argon2Hash(randomBytes(16).toString('hex'))), input.password).then(() => false);
      if (!user || !passwordOk) throw new AppError('Unauthorized', 'The email address or the password is wrong.');
      if (!user.emailVerifiedAt) {
        await sendVerification(user.id, user.email);
        throw new AppError('Forbidden', 'Confirm your email address first: we have sent you a new link.');
      }
      const person = actor({ userId: user.id, email: user.email, role: user.role, merchantId: user.merchantId }, input.ip);
      const { recoveryCodeUsed } = await checkSecondFactor(tx, config.secretsKey, user, input.code);
      if (recoveryCodeUsed) await recordAudit(tx, person, 'two_factor.recovery_code_used');
      if (input.previousToken) await deleteSession(tx, tokenHash(input.previousToken));
      await deleteExpiredSessions(tx);
      const token = randomBytes(32).toString('base64url');
      const expiresAt = await insertSession(tx, {
        tokenHash: tokenHash(token),
        userId: user.id,
        ip: input.ip,
        ttlSeconds: SESSION_TTL_SECONDS,
      });
      await recordAudit(
        tx,
        actor({ userId: user.id, email: user.email, role: user.role, merchantId: user.merchantId }, input.ip),
        'session.signed_in',
      );
      return { token, expiresAt };
    },

    /**
     * The signed-in person confirms who they are again (their password) before an action that moves
     * money or reveals a secret. Runs in the sign-in limit's transaction, so a stolen cookie cannot
     * be used to guess the password.
     */
    async stepUp(
      tx: DatabaseOrTransaction,
      input: { token: string; password: string; code?: string | undefined; ip: string },
    ): Promise<void> {
      const session = await findSession(tx, tokenHash(input.token));
      if (!session) throw new AppError('Unauthorized', 'Sign in to the dashboard first.');
      const user = await findDashboardUserByEmail(tx, session.email);
      if (!user || !(await argon2Verify(user.passwordHash, input.password))) {
        throw new AppError('Unauthorized', 'The password is wrong.');
      }
      const { recoveryCodeUsed } = await checkSecondFactor(tx, config.secretsKey, user, input.code);
      if (recoveryCodeUsed) await recordAudit(tx, actor(session, input.ip), 'two_factor.recovery_code_used');
      await markSteppedUp(tx, tokenHash(input.token));
      await recordAudit(tx, actor(session, input.ip), 'session.stepped_up');
    },

    async signOut(token: string, ip: string): Promise<void> {
      await db.transaction(async (tx) => {
        const session = await findSession(tx, tokenHash(token));
        await deleteSession(tx, tokenHash(token));
        if (session) await recordAudit(tx, actor(session, ip), 'session.signed_out');
      });
    },

    /** Ends every session of the person (a lost laptop, a shared computer): this one too. */
    async signOutEverywhere(person: DashboardActor): Promise<number> {
      return db.transaction(async (tx) => {
        const ended = await deleteUserSessions(tx, person.userId);
        await recordAudit(tx, person, 'sessions.ended_everywhere', null, { sessions: ended });
        return ended;
      });
    },

    /** The person and merchant of an unexpired session, or undefined. */
    session: (token: string): Promise<DashboardSession | undefined> => findSession(db, tokenHash(token)),
  };
}

export type MerchantAccounts = ReturnType<typeof createMerchantAccounts>;
