import { bigserial, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Attempts counted for rate limits, kept in Postgres so that every API process counts the same
// window: failed credential attempts, and new checkout sessions opened from payment links.
export const authFailures = pgTable(
  'auth_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // 'merchant' (subject = merchant id as sent), 'ip' (plugin connect; subject = client address),
    // 'admin_ip' (admin token) or 'metrics_ip' (metrics token; subject = client address), 'link' (a
    // session opened from a payment link; subject = link id) or 'link_ip' (the same; subject = client address);
    // 'dashboard_ip' (dashboard sign-in; subject = client address) or 'dashboard_account' (the same;
    // subject = email and client address); 'dashboard_account_any' (the same; subject = email,
    // whatever the address) and 'dashboard_sign_in_notice' (its notice to the person; subject = email);
    // 'dashboard_reset_ip' and 'dashboard_reset_account' (every "forgot password" request, counted the
    // same way); 'dashboard_signup_ip' and 'dashboard_signup_email' (every sign-up request; subject =
    // client address, email) and 'dashboard_signup_notice' (the notice to an address that already has
    // an account; subject = email); 'simple_order_ip' (every order the simple API opens; subject =
    // client address).
    dimension: text('dimension', {
      enum: [
        'merchant',
        'ip',
        'admin_ip',
        'metrics_ip',
        'link',
        'link_ip',
        'dashboard_ip',
        'dashboard_account',
        'dashboard_account_any',
        'dashboard_sign_in_notice',
        'dashboard_reset_ip',
        'dashboard_reset_account',
        'dashboard_signup_ip',
        'dashboard_signup_email',
        'dashboard_signup_notice',
        'simple_order_ip',
      ],
    }).notNull(),
    subject: text('subject').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('auth_failures_lookup_idx').on(t.dimension, t.subject, t.occurredAt)],
);
