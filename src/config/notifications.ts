import { z } from 'zod';

// What the service sends on its own: signed webhooks to merchants, and mail to people.

export const notificationVariables = {
  // First retry after 30 s, doubling, at most 1 h apart, for 72 h. Tests shorten them.
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.1).default(30),
  WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: z.coerce.number().min(0.1).default(3600),
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce.number().min(0.001).default(72),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  // Mail (the dashboard's verification and notices) goes out through this SMTP server
  // (smtp:// or smtps://, user and password in the URL). `npm start` and the tests run a local sink.
  SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().trim().min(3).max(200).default('svc checkout <no-reply@localhost>'),
  // Development only: the folder the local SMTP sink writes its mail to, shown at /dashboard/dev/mail.
  DEV_MAILBOX_DIR: z.string().min(1).optional(),
};

export interface WebhookSettings {
  retryBaseSeconds: number;
  retryMaxIntervalSeconds: number;
  retryWindowHours: number;
  timeoutMs: number;
}

/** smtpUrl null: no mail can be sent (the dashboard's sign-up answers 503). devMailboxDir: development only. */
export interface MailSettings {
  smtpUrl: string | null;
  from: string;
  devMailboxDir: string | null;
}

export function notificationSettingsOf(
  e: z.output<z.ZodObject<typeof notificationVariables>>,
  production: boolean,
): { webhooks: WebhookSettings; mail: MailSettings } {
  return {
    webhooks: {
      retryBaseSeconds: e.WEBHOOK_RETRY_BASE_SECONDS,
      retryMaxIntervalSeconds: e.WEBHOOK_RETRY_MAX_INTERVAL_SECONDS,
      retryWindowHours: e.WEBHOOK_RETRY_WINDOW_HOURS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    mail: {
      smtpUrl: e.SMTP_URL ?? null,
      from: e.MAIL_FROM,
      devMailboxDir: production ? null : (e.DEV_MAILBOX_DIR ?? null),
    },
  };
}
