import { html, type Raw } from '../../domain/html';
import { READING_REFRESH_S } from './checkout-page';
import { hostedDocument } from './document';
import type { PageText } from './i18n';

export interface LinkPageModel {
  link: { id: string; currency: string; description: string | null; expiresAt: Date; destinationAsset: string; network: string };
  /** What the customer can do now: a link past expiresAt counts as expired before its workflow says so. */
  status: 'active' | 'paid' | 'expired';
  amount: string;
  merchantName: string;
  paymentsEnabled: boolean;
  /** The merchant is approved; otherwise the link starts no payment. */
  merchantAccepting: boolean;
  /** Countries a provider serves for the link's currency, sorted by name. */
  countries: { code: string; name: string }[];
  selectedCountry?: string | undefined;
  notice?: string | undefined;
  text: PageText;
}

/**
 * A payment link's page, server-rendered and complete without a script: the customer
 * picks a country (it routes the payment to a provider that serves it) and is sent to a checkout
 * session. While the link can be paid, the page follows it live (paid by someone else, expired):
 * live.js on its stream, or a slow meta refresh without JavaScript.
 */
export function renderLinkPage(m: LinkPageModel): string {
  const { t } = m.text;
  const price = m.text.money(m.amount, m.link.currency);
  let actions: Raw = html``;
  if (m.status === 'active' && !m.merchantAccepting) {
    actions = html`<p class="notice" role="alert">${t('link.merchantUnavailable')}</p>`;
  } else if (m.status === 'active' && m.countries.length === 0) {
    actions = html`<p class="notice" role="alert">${t('link.currencyUnavailable', { currency: m.link.currency })}</p>`;
  } else if (m.status === 'active' && m.paymentsEnabled) {
    const options = m.countries.map(
      (c) => html`<option value="${c.code}"${c.code === m.selectedCountry ? html` selected` : ''}>${c.name}</option>`,
    );
    actions = html`
      <form method="post" action="/link/${m.link.id}/pay">
        <label for="country">${t('link.country')}</label>
        <select id="country" name="country" required autocomplete="country">
          <option value="">${t('link.choose')}</option>
          ${options}
        </select>
        <button type="submit" class="primary" id="pay-button">${t('link.pay', { amount: price })}</button>
      </form>`;
  }

  // The kill switch has a state of its own, said once: never "Ready to pay" above "unavailable".
  const stateKey = m.status === 'active' && m.merchantAccepting && !m.paymentsEnabled ? 'paused' : m.status;
  return hostedDocument(
    {
      title: t('link.title', { merchant: m.merchantName }),
      lang: m.text.locale,
      scripts: m.status === 'active' ? ['/pay/assets/live.js'] : [],
      refresh: m.status === 'active' ? { seconds: READING_REFRESH_S } : undefined,
    },
    html`
  <main class="card" id="payment-link" data-link-id="${m.link.id}" data-status="${m.status}"${m.status === 'active' ? html` data-events="/link/${m.link.id}/events" data-live="${JSON.stringify({ status: m.status })}"` : ''}>
    <header>
      <p class="merchant" id="merchant">${m.merchantName}</p>
      <h1 class="amount"><span id="amount">${m.text.amount(m.amount, m.link.currency)}</span> <span id="currency">${m.link.currency}</span></h1>
      ${m.link.description ? html`<p class="description" id="description">${m.link.description}</p>` : ''}
    </header>
    <section class="state state-${m.status}" aria-live="polite">
      <h2 id="status-title">${t(`link.states.${stateKey}.title`)}</h2>
      <p id="status" data-status="${m.status}">${t(`link.states.${stateKey}.body`)}</p>
      ${m.notice ? html`<p class="notice" role="alert">${m.notice}</p>` : ''}
    </section>
    <div class="actions">${actions}</div>
    <footer><p>${t('link.secure')} · ${m.status === 'active' ? t('common.openUntil', { date: m.text.dateTime(m.link.expiresAt) }) : t('link.closed')}</p></footer>
  </main>`,
  );
}
