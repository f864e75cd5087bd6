import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { DASHBOARD_ROLES } from '../../domain/dashboard-roles';
import { merchants } from './merchants';

// The merchant dashboard's people and their sign-ins. Passwords are argon2id
// hashes; session and email tokens are stored as SHA-256 hashes only (a copy of the table signs no
// one in).

export { DASHBOARD_ROLES, type DashboardRole } from '../../domain/dashboard-roles';

export const dashboardUsers = pgTable(
  'dashboard_users',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    // Lower-cased and trimmed: one person, one account, whatever the case they type.
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: DASHBOARD_ROLES }).notNull(),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // The second factor (TOTP, RFC 6238): the shared secret sealed with SECRETS_KEY, set at enrolment
    // and in force once confirmed with a code (totp_enabled_at). The time step of the last code used,
    // so that a code works once.
    totpSecretEncrypted: text('totp_secret_encrypted'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('dashboard_users_email_idx').on(t.email),
    index('dashboard_users_merchant_idx').on(t.merchantId),
    check('dashboard_users_role_check', sql`${t.role} in ('owner', 'admin', 'developer', 'viewer')`),
  ],
);

export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    // Where the sign-in came from, for the person's own review of their sessions.
    ip: text('ip').notNull(),
    // When the person last confirmed who they are inside this session (password, and their second
    // factor where they have one): money-moving and secret-revealing actions ask for a recent one.
    steppedUpAt: timestamp('stepped_up_at', { withTimezone: true }),
  },
  (t) => [index('dashboard_sessions_user_idx').on(t.userId), index('dashboard_sessions_expiry_idx').on(t.expiresAt)],
);

// verify_email: the sign-up's address confirmation (24 h); reset_password: a forgotten password's
// one-time link (1 h). Spent (used_at) and expired tokens are purged by the API's sweep.
export const EMAIL_TOKEN_PURPOSES = ['verify_email', 'reset_password'] as const;

export const dashboardEmailTokens = pgTable(
  'dashboard_email_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: EMAIL_TOKEN_PURPOSES }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('dashboard_email_tokens_user_idx').on(t.userId), index('dashboard_email_tokens_expiry_idx').on(t.expiresAt)],
);

// An invitation to join a merchant's team: a single-use link mailed to the address, good for 7 days.
// The token is stored as its SHA-256 hash only. One pending invitation per address and merchant: a
// new one replaces it.
export const dashboardInvitations = pgTable(
  'dashboard_invitations',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    email: text('email').notNull(),
    role: text('role', { enum: DASHBOARD_ROLES }).notNull(),
    tokenHash: text('token_hash').notNull(),
    // Who invited, as they were then: the member may be removed later, the record stays readable.
    invitedByEmail: text('invited_by_email').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('dashboard_invitations_token_idx').on(t.tokenHash),
    index('dashboard_invitations_expiry_idx').on(t.expiresAt),
    uniqueIndex('dashboard_invitations_pending_idx')
      .on(t.merchantId, t.email)
      .where(sql`${t.acceptedAt} is null`),
    check('dashboard_invitations_role_check', sql`${t.role} in ('owner', 'admin', 'developer', 'viewer')`),
  ],
);

// What people did in the dashboard (who, what, when, from where), written in the transaction of the
// change it records. Never a secret: keys, secrets and codes are named by id or last four only. The
// person is kept by id and address as they were, so removing a member keeps their history readable.
export const dashboardAuditLog = pgTable(
  'dashboard_audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    actorUserId: text('actor_user_id').notNull(),
    actorEmail: text('actor_email').notNull(),
    action: text('action').notNull(),
    // The thing acted on: a key, endpoint, member or invitation id, or null for the account itself.
    target: text('target'),
    details: jsonb('details').$type<Record<string, unknown>>(),
    ip: text('ip').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // created_at: the sweep's purge of rows past DASHBOARD_AUDIT_RETENTION_DAYS.
  (t) => [index('dashboard_audit_log_merchant_idx').on(t.merchantId, t.id), index('dashboard_audit_log_created_idx').on(t.createdAt)],
);

// Recovery codes for a lost authenticator: ten at confirmation, shown once, SHA-256 hashed (each is
// 50 random bits, too many to guess under the sign-in limits), each good once.
export const dashboardRecoveryCodes = pgTable(
  'dashboard_recovery_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('dashboard_recovery_codes_user_idx').on(t.userId)],
);
