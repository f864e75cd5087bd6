import { html, type Raw } from '../../domain/html';
import type { PageText } from './i18n';

/** "1:05:09" or "4:59": what is left, as a clock, never negative. */
export function remainingClock(expiresAt: Date, now: Date): string {
  const total = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/**
 * The time left before an open page expires, right on first render; the page's script ticks it.
 * The absolute moment is in the element's title and datetime, in the customer's conventions.
 */
export function countdown(expiresAt: Date, now: Date, text: PageText): Raw {
  return html`<span id="expiry">${text.t('common.expiresIn')} <time id="countdown" datetime="${expiresAt.toISOString()}" title="${text.dateTime(expiresAt)}">${remainingClock(expiresAt, now)}</time></span>`;
}
