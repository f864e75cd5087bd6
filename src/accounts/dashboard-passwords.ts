import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Database, DatabaseOrTransaction } from '../db/client';
import {
  deleteOtherSessions,
  deleteUserSessions,
  findDashboardUserByEmail,
  findDashboardUserById,
  insertEmailToken,
  markEmailVerified,
  setPasswordHash,
  spendEmailTokens,
  useEmailToken,
} from '../db/queries/dashboard';
import { clearSignInFailures } from '../db/queries/auth-failures';
import { AppError } from '../domain/errors';
import { randomBase62 } from '../domain/ids';
import type { Mailer } from '../mail/mailer';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { actor, normalizeEmail, tokenHash } from './dashboard-identity';
import { queueNotice } from './merchant-notices';

// A dashboard account's password: forgotten (a one-time link by mail), reset through that link, or
// changed by its signed-in person. Either ends the person's other sessions (a reset, all of them)
// and writes a notice to the mail outbox with the change.

/** A password reset's link works this long, once. */
export const RESET_TOKEN_TTL_MS = 3600 * 1000;

export interface PasswordDeps {
  db: Database;
  mailer: Mailer;
  now: () => Date;
  /** The dashboard's public URL, for the links the mails carry. */
  dashboardUrl: string;
}

export function createDashboardPasswords({ db, mailer, now, dashboardUrl }: PasswordDeps) {
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
  };
}
