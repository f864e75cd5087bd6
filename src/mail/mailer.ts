import { createTransport } from 'nodemailer';

// Mail goes out through SMTP_URL from MAIL_FROM. One small interface for every kind
// of mail (the dashboard's verification and notices now, customers' receipts later): who, subject,
// plain text, and an HTML part when there is one.

export interface Mailer {
  /**
   * Resolves when the SMTP server has accepted the message. `messageId` (e.g. `<id@host>`) names it for
   * good: a message sent again after a crash carries the same one, so mail clients can tell it is the same.
   */
  send(to: string, subject: string, text: string, html?: string, options?: { messageId?: string }): Promise<void>;
  close(): void;
}

/** No SMTP_URL is configured: nothing can be sent. */
export class MailNotConfigured extends Error {
  constructor() {
    super('No SMTP_URL is configured: mail cannot be sent.');
    this.name = 'MailNotConfigured';
  }
}

export function createMailer(settings: { smtpUrl: string | null; from: string }): Mailer {
  const { smtpUrl, from } = settings;
  if (!smtpUrl) {
    return {
      send: () => Promise.reject(new MailNotConfigured()),
      close: () => {},
    };
  }
  // A slow or silent SMTP server must not hold a request for minutes (nodemailer's defaults).
  const url = new URL(smtpUrl);
  url.searchParams.set('connectionTimeout', '10000');
  url.searchParams.set('greetingTimeout', '10000');
  url.searchParams.set('socketTimeout', '20000');
  const transport = createTransport(url.toString());
  return {
    async send(to, subject, text, html, options) {
      await transport.sendMail({
        from,
        to,
        subject,
        text,
        ...(html === undefined ? {} : { html }),
        ...(options?.messageId ? { messageId: options.messageId } : {}),
      });
    },
    close: () => transport.close(),
  };
}
