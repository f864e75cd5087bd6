import { randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Config } from '../config';
import type { Database, DatabaseOrTransaction } from '../db/client';
import {
  DASHBOARD_USER_EMAIL_INDEX,
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
import { failureRetryAfter, lockFailureSubjects, recordFailures, type FailureLimit } from '../db/queries/auth-failures';
import { AppError } from '../domain/errors';
import { randomBase62 } from '../domain/ids';
import { violatedUniqueConstraint } from '../domain/sql-errors';
import type { Mailer } from '../mail/mailer';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { actor, normalizeEmail, tokenHash } from './dashboard-identity';
import { createDashboardPasswords } from './dashboard-passwords';
import { openMerchant } from './merchant-credentials';
import { queueNotice } from './merchant-notices';
import { checkSecondFactor } from './two-factor';

// Merchants sign up in the dashboard (a merchant pending review and its owner), confirm
// their email address, and sign in to a server-side session; a forgotten or changed password is
// dashboard-passwords.ts's. Passwords are argon2id hashes (@node-rs/argon2's defaults: 19 MiB,
// 2 passes, OWASP's recommended minimum); session and email tokens are 256-bit random values stored
// as SHA-256 hashes.

/** A repeated sign-up of an address that has an account mails its person at most once in this window. */
export const SIGN_UP_NOTICE_WINDOW_SECONDS = 24 * 3600;

/** A session lasts this long from sign-in, then the person signs in again. */
export const SESSION_TTL_SECONDS = 12 * 3600;
const VERIFY_TOKEN_TTL_MS = 24 * 3600 * 1000;

export type DashboardSession = NonNullable<Awaited<ReturnType<typeof findSession>>>;

// Checked against when the email is unknown, so that an unknown address costs the same time as a
// wrong password and the answer's timing does not tell which accounts exist.
let decoyHash: Promise<string> | undefined;

export interface AccountDeps {
  db: Database;
  config: Pick<Config, 'secretsKey' | 'mail' | 'http'>;
  mailer: Mailer;
  now: () => Date;
}

export function createMerchantAccounts({ db, config, mailer, now }: AccountDeps) {
  const dashboardUrl = `${config.http.publicBaseUrl}/dashboard`;

  async function sendVerification(userId: string, email: string) {
    const token = randomBase62(43);
    await insertEmailToken(db, {
      tokenHash: tokenHash(token),
      userId,
      purpose: 'verify_email',
      expiresAt: new Date(now().getTime() + VERIFY_TOKEN_TTL_MS),
    });
    const link = `${dashboardUrl}/verify-email?token=${token}`;
    await mailer.send(
      email,
      'Confirm your email address',
      `Welcome. Open this link to confirm your email address for the merchant dashboard:\n\n${link}\n\nThe link works for 24 hours. If you did not sign up, ignore this mail.`,
    );
  }

  /** Whether the "already has an account" notice may go to `email` now; if so, it is counted as sent. */
  const signUpNoticeDue = (email: string): Promise<boolean> =>
    db.transaction(async (tx) => {
      const once: FailureLimit = { dimension: 'dashboard_signup_notice', subject: email.slice(0, 254), max: 1 };
      await lockFailureSubjects(tx, [once]);
      if ((await failureRetryAfter(tx, once, SIGN_UP_NOTICE_WINDOW_SECONDS)) !== null) return false;
      await recordFailures(tx, [once]);
      return true;
    });

  return {
    ...createDashboardPasswords({ db, mailer, now, dashboardUrl }),

    /**
     * A new merchant (pending review) and its owner. An address already signed up gets a notice
     * instead, and the caller the same answer, so sign-up does not tell who has an account.
     */
    async signUp(input: { businessName: string; email: string; password: string }): Promise<void> {
      if (!config.mail.smtpUrl) throw new AppError('Unavailable', 'Sign-up needs mail, and no SMTP_URL is configured.');
      const email = normalizeEmail(input.email);
      const passwordHash = await argon2Hash(input.password);
      // Anyone can sign up with someone else's address: repeated, the notice would be a way to flood
      // that person's inbox from our server. One a window tells them all they need.
      const alreadyThere = async () => {
        if (!(await signUpNoticeDue(email))) return;
        await mailer.send(
          email,
          'Someone tried to sign up with your email address',
          `Your email address already has a merchant dashboard account. Sign in at ${dashboardUrl}/sign-in.\n\nIf this was not you, you need do nothing.`,
        );
      };
      const existing = await findDashboardUserByEmail(db, email);
      if (existing) return alreadyThere();
      const user = await db
        .transaction(async (tx) => {
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
        })
        .catch((err: unknown) => {
          // The same address signed up twice at once: the second is answered like any repeat.
          if (violatedUniqueConstraint(err) === DASHBOARD_USER_EMAIL_INDEX) return null;
          throw err;
        });
      if (!user) return alreadyThere();
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
      const { recoveryCodeUsed } = await checkSecondFactor(tx, now(), config.secretsKey, user, input.code);
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
      const { recoveryCodeUsed } = await checkSecondFactor(tx, now(), config.secretsKey, user, input.code);
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

    /**
     * The notice to a person whose account has met the sign-in limit counted across addresses, and
     * its line in the audit log: written (the notice to the mail outbox) in the failed attempt's
     * transaction (the limit decides how often). An address without an account is mailed nothing.
     */
    async warnOfSignInGuessing(tx: DatabaseOrTransaction, email: string, ip: string): Promise<void> {
      const user = await findDashboardUserByEmail(tx, normalizeEmail(email));
      if (!user) return;
      // The owners' record of it: the account's person is named, the address is the latest guesser's.
      await recordAudit(
        tx,
        actor({ userId: user.id, email: user.email, role: user.role, merchantId: user.merchantId }, ip),
        'sign_in.paused',
        null,
        { reason: 'failed_sign_ins' },
      );
      await queueNotice(tx, user.merchantId, [user.email], {
        subject: 'Someone is trying to sign in to your dashboard account',
        text:
          `Sign-in to your merchant dashboard account failed many times in the last few minutes, from one or more ` +
          `addresses (the latest: ${ip}, at ${now().toISOString()}). Sign-in to your account is paused for a while; ` +
          `nobody was let in.\n\n` +
          `If this was not you, choose a new password (${dashboardUrl}/forgot-password works meanwhile) and turn on ` +
          `two-factor authentication on the Account security page.`,
      });
    },

    /** The person and merchant of an unexpired session, or undefined. */
    session: (token: string): Promise<DashboardSession | undefined> => findSession(db, tokenHash(token)),
  };
}

export type MerchantAccounts = ReturnType<typeof createMerchantAccounts>;
