import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Config } from '../config';
import type { Database, DatabaseOrTransaction } from '../db/client';
import {
  DASHBOARD_USER_EMAIL_INDEX,
  deleteExpiredSessions,
  deleteOtherSessions,
  deleteUserSessions,
  deleteSession,
  findDashboardUserByEmail,
  findDashboardUserById,
  findSession,
  insertDashboardUser,
  insertEmailToken,
  insertSession,
  markSteppedUp,
  markEmailVerified,
  setPasswordHash,
  spendEmailTokens,
  useEmailToken,
} from '../db/queries/dashboard';
import {
  clearSignInFailures,
  failureRetryAfter,
  lockFailureSubjects,
  recordFailures,
  type FailureLimit,
} from '../db/queries/auth-failures';
import { AppError } from '../domain/errors';
import { randomBase62 } from '../domain/ids';
import { violatedUniqueConstraint } from '../domain/sql-errors';
import type { Mailer } from '../mail/mailer';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { openMerchant } from './merchant-credentials';
import { queueNotice } from './merchant-notices';
import { checkSecondFactor } from './two-factor';

// Merchants sign up in the dashboard (a merchant pending review and its owner), confirm
// their email address, and sign in to a server-side session. Passwords are argon2id hashes
// (@node-rs/argon2's defaults: 19 MiB, 2 passes, OWASP's recommended minimum); session and email
// tokens are 256-bit random values stored as SHA-256 hashes.

/** A repeated sign-up of an address that has an account mails its person at most once in this window. */
export const SIGN_UP_NOTICE_WINDOW_SECONDS = 24 * 3600;

/** A session lasts this long from sign-in, then the person signs in again. */
export const SESSION_TTL_SECONDS = 12 * 3600;
const VERIFY_TOKEN_TTL_MS = 24 * 3600 * 1000;
/** A password reset's link works this long, once. */
export const RESET_TOKEN_TTL_MS = 3600 * 1000;

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

  /** The security notice of a changed password, to the person's own address, in the change's transaction. */
  const passwordNotice = (tx: DatabaseOrTransaction, person: { merchantId: string; email: string }, how: string, ip: string) =>
    queueNotice(tx, person.merchantId, [person.email], {
      subject: 'Your dashboard password was changed',
      text:
        `The password of your merchant dashboard account was ${how} at ${now().toISOString()} from ${ip}. ` +
        `Your other sessions were signed out.\n\n` +
        `If this was not you, reset your password at once at ${dashboardUrl}/forgot-password and tell your team's owners.`,
    });

  return {
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
     * "Forgot password": mails a one-time link (RESET_TOKEN_TTL_MS) to the address if it has an
     * account, and nothing otherwise; the caller answers the same either way. Answers the mail's
     * sending, for the caller to start once the token is stored and not wait for, so the answer's
     * timing does not tell either.
     */
    async forgotPassword(tx: DatabaseOrTransaction, emailInput: string): Promise<{ send: (() => Promise<void>) | null }> {
      const user = await findDashboardUserByEmail(tx, normalizeEmail(emailInput));
      if (!user) return { send: null };
      const token = randomBase62(43);
      await insertEmailToken(tx, {
        tokenHash: tokenHash(token),
        userId: user.id,
        purpose: 'reset_password',
        expiresAt: new Date(now().getTime() + RESET_TOKEN_TTL_MS),
      });
      const link = `${dashboardUrl}/reset-password?token=${token}`;
      const send = () =>
        mailer.send(
          user.email,
          'Reset your dashboard password',
          `Someone (we hope you) asked to reset the password of your merchant dashboard account.\n\n` +
            `Open this link to choose a new password:\n\n${link}\n\n` +
            `The link works once, for one hour. If you did not ask for it, ignore this mail: your password stays as it is.`,
        );
      return { send };
    },

    /**
     * Spends a reset link: the new password (argon2id) in force, every session of the person ended,
     * the person's other reset links spent, the address confirmed (the mail proved it), the failed
     * sign-ins counted against the account forgotten (someone else's guesses no longer keep its person
     * out), and the security notice written to the mail outbox with it. A second factor stays in
     * force: the next sign-in still asks for its code.
     */
    async resetPassword(input: { token: string; password: string; ip: string }): Promise<void> {
      const passwordHash = await argon2Hash(input.password);
      await db.transaction(async (tx) => {
        const userId = await useEmailToken(tx, tokenHash(input.token), 'reset_password');
        if (!userId) throw new AppError('ValidationError', 'This link has expired or was used already: ask for a new one.');
        const person = await findDashboardUserById(tx, userId);
        if (!person) throw new AppError('ValidationError', 'This link has expired or was used already: ask for a new one.');
        await setPasswordHash(tx, userId, passwordHash);
        await spendEmailTokens(tx, userId, 'reset_password');
        await markEmailVerified(tx, userId);
        const ended = await deleteUserSessions(tx, userId);
        await clearSignInFailures(tx, person.email);
        await recordAudit(
          tx,
          actor({ userId, email: person.email, role: person.role, merchantId: person.merchantId }, input.ip),
          'password.reset',
          null,
          { sessionsEnded: ended },
        );
        await passwordNotice(tx, person, 'reset through the link mailed to you', input.ip);
      });
    },

    /**
     * The signed-in person's new password: the current one confirms it is them (or a recent step-up,
     * when `currentPassword` is absent). Runs in the sign-in limit's transaction: a wrong current
     * password is Unauthorized and counts. Every other session of theirs ends; this one stays; the
     * notice is written to the mail outbox with the change.
     */
    async changePassword(
      tx: DatabaseOrTransaction,
      person: DashboardActor & { token: string; steppedUpRecently: boolean },
      input: { currentPassword?: string | undefined; newPassword: string },
    ): Promise<{ sessionsEnded: number }> {
      const user = await findDashboardUserByEmail(tx, person.email);
      if (!user) throw new AppError('Unauthorized', 'Sign in to the dashboard first.');
      if (input.currentPassword === undefined) {
        if (!person.steppedUpRecently) {
          throw new AppError('Forbidden', 'Give your current password, or confirm who you are first.');
        }
      } else if (!(await argon2Verify(user.passwordHash, input.currentPassword))) {
        throw new AppError('Unauthorized', 'The current password is wrong.');
      }
      await setPasswordHash(tx, user.id, await argon2Hash(input.newPassword));
      await spendEmailTokens(tx, user.id, 'reset_password');
      const sessionsEnded = await deleteOtherSessions(tx, user.id, tokenHash(person.token));
      await recordAudit(tx, person, 'password.changed', null, { sessionsEnded });
      await passwordNotice(tx, person, 'changed in the dashboard', person.ip);
      return { sessionsEnded };
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
