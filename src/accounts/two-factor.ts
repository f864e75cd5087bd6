import { randomBytes } from 'node:crypto';
import { verify as argon2Verify } from '@node-rs/argon2';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { findDashboardUserByEmail, type DashboardUserRow } from '../db/queries/dashboard';
import {
  clearStepUps,
  disableTotp,
  enableTotp,
  replaceRecoveryCodes,
  setPendingTotp,
  useRecoveryCode,
  useTotpStep,
} from '../db/queries/dashboard-two-factor';
import { sha256Hex } from '../domain/credentials';
import { AppError } from '../domain/errors';
import { decryptSecret, encryptSecret } from '../domain/secretbox';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { queueNotice } from './merchant-notices';

// The dashboard's second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every
// authenticator app reads an otpauth:// URI) through `otpauth`. The secret is sealed with SECRETS_KEY
// like the live key held for the dashboard; a code works once (the step of the last one used is
// kept); ten recovery codes, hashed, stand in for a lost phone, each once.

const ISSUER = 'svc checkout';
const PERIOD = 30;
/** One step either side of now: a phone's clock a little off, or a code typed as it turned. */
const WINDOW = 1;
const RECOVERY_CODES = 10;
const RECOVERY_FORMAT = /^[a-z2-7]{5}-[a-z2-7]{5}$/;

const totpOf = (secretBase32: string, label = 'dashboard') =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) });

const hashCode = sha256Hex;

function newRecoveryCode(): string {
  // 50 bits in base32 (a–z, 2–7), as two groups of five.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * The password was right and a code is still to come: 403 (not a failed attempt, which would count
 * towards the sign-in limits) with the `code` field named, which the sign-in page asks for.
 */
const codeRequired = () =>
  new AppError('Forbidden', 'Enter the 6-digit code from your authenticator app, or a recovery code.', {
    details: [{ path: 'code', message: 'required: this account has two-factor authentication' }],
  });

/**
 * Checks a person's second factor inside the caller's transaction (the sign-in limits' one: a wrong
 * code is Unauthorized and counts like a wrong password). No code while one is enrolled is
 * a 403 naming the `code` field, which does not count: the password was right. Answers whether a recovery code
 * was used.
 */
export async function checkSecondFactor(
  tx: DatabaseOrTransaction,
  now: Date,
  secretsKey: Buffer,
  user: DashboardUserRow,
  code: string | undefined,
): Promise<{ recoveryCodeUsed: boolean }> {
  if (!user.totpEnabledAt || !user.totpSecretEncrypted) return { recoveryCodeUsed: false };
  const typed = code?.trim().toLowerCase().replace(/\s+/g, '');
  if (!typed) throw codeRequired();
  if (RECOVERY_FORMAT.test(typed)) {
    if (await useRecoveryCode(tx, user.id, hashCode(typed))) return { recoveryCodeUsed: true };
    throw new AppError('Unauthorized', 'The recovery code is wrong or was used already.');
  }
  await useCode(tx, now.getTime(), secretsKey, user.id, user.totpSecretEncrypted, typed);
  return { recoveryCodeUsed: false };
}

async function useCode(
  tx: DatabaseOrTransaction,
  now: number,
  secretsKey: Buffer,
  userId: string,
  sealed: string,
  code: string,
): Promise<void> {
  const delta = /^\d{6}$/.test(code)
    ? totpOf(decryptSecret(secretsKey, sealed)).validate({ token: code, timestamp: now, window: WINDOW })
    : null;
  if (delta === null) throw new AppError('Unauthorized', 'The code is wrong or has expired.');
  const step = Math.floor(now / 1000 / PERIOD) + delta;
  if (!(await useTotpStep(tx, userId, step))) throw new AppError('Unauthorized', 'This code was used already: wait for the next one.');
}

export interface TwoFactorDeps {
  db: Database;
  secretsKey: Buffer;
  /** The clock a code's step is read from. */
  now: () => Date;
}

export function createTwoFactor({ db, secretsKey, now }: TwoFactorDeps) {
  const person = async (tx: DatabaseOrTransaction, actor: DashboardActor) => {
    const user = await findDashboardUserByEmail(tx, actor.email);
    if (!user) throw new AppError('Unauthorized', 'Sign in to the dashboard first.');
    return user;
  };
  /** The person's own notice of the change, written in its transaction (merchant-notices.ts). */
  const notify = (tx: DatabaseOrTransaction, actor: DashboardActor, subject: string, what: string) =>
    queueNotice(tx, actor.merchantId, [actor.email], {
      subject,
      text: `${what}\n\nIf this was not you, sign in, change your password and tell your team's owners at once.`,
    });

  return {
    /** A new secret for the person, not yet in force: the URI (and its QR code) for their app. */
    async enroll(actor: DashboardActor): Promise<{ secret: string; uri: string; qrSvg: string }> {
      const secret = new Secret({ size: 20 }).base32;
      if (!(await setPendingTotp(db, actor.userId, encryptSecret(secretsKey, secret)))) {
        throw new AppError('Conflict', 'Two-factor authentication is on already: turn it off first to enrol a new device.');
      }
      const uri = totpOf(secret, actor.email).toString();
      return { secret, uri, qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 2 }) };
    },

    /** The first code from the app puts the second factor in force; the recovery codes are answered once. */
    async confirm(actor: DashboardActor, code: string): Promise<{ recoveryCodes: string[] }> {
      const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      await db.transaction(async (tx) => {
        const user = await person(tx, actor);
        if (user.totpEnabledAt) throw new AppError('Conflict', 'Two-factor authentication is on already.');
        if (!user.totpSecretEncrypted) throw new AppError('Conflict', 'Start the enrolment first.');
        // Checked before anything is written: a wrong code leaves the enrolment pending.
        await useCode(tx, now().getTime(), secretsKey, user.id, user.totpSecretEncrypted, code.trim()).catch((e: unknown) => {
          throw e instanceof AppError && e.code === 'Unauthorized' ? new AppError('ValidationError', e.message) : e;
        });
        await enableTotp(tx, user.id);
        // From now on a step-up includes the code: one made with the password alone ends here.
        await clearStepUps(tx, user.id);
        await replaceRecoveryCodes(tx, user.id, codes.map(hashCode));
        await recordAudit(tx, actor, 'two_factor.enabled');
        await notify(
          tx,
          actor,
          'Two-factor authentication is on',
          'Two-factor authentication was turned on for your merchant dashboard account.',
        );
      });
      return { recoveryCodes: codes };
    },

    /** Off again, with the password and a current code (or a recovery code): a stolen session alone cannot. */
    async disable(tx: DatabaseOrTransaction, actor: DashboardActor, input: { password: string; code: string }): Promise<void> {
      const user = await person(tx, actor);
      if (!user.totpEnabledAt) throw new AppError('Conflict', 'Two-factor authentication is not on.');
      if (!(await argon2Verify(user.passwordHash, input.password))) throw new AppError('Unauthorized', 'The password is wrong.');
      await checkSecondFactor(tx, now(), secretsKey, user, input.code);
      await disableTotp(tx, user.id);
      await recordAudit(tx, actor, 'two_factor.disabled');
      await notify(
        tx,
        actor,
        'Two-factor authentication is off',
        'Two-factor authentication was turned off for your merchant dashboard account.',
      );
    },
  };
}

export type TwoFactor = ReturnType<typeof createTwoFactor>;
