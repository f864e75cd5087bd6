import { html, type Raw } from '../../domain/html';
import { hostedDocument } from './document';

export interface LinkPageModel {
  link: { id: string; currency: string; description: string | null; expiresAt: Date; destinationAsset: string; network: string };
  /** What the customer can do now: a link past expiresAt counts as expired before its workflow says so. */
  status: 'active' | 'paid' | 'expired';
  amount: string;
  merchantName: string;
  paymentsEnabled: boolean;
  /** Countries a provider serves for the link's currency, sorted by name. */
  countries: { code: string; name: string }[];
  selectedCountry?: string | undefined;
  notice?: string | undefined;
}

const STATE_TEXT = {
  active: { title: 'Ready to pay', body: 'Choose your country, then pay by card or bank with our payment partner.' },
  paid: { title: 'Already paid', body: 'This payment link has been paid. No further payment is needed.' },
  expired: { title: 'Link expired', body: 'This payment link has expired. Please ask the merchant for a new one.' },
} as const;

/**
 * A payment link's page (decisions §5), server-rendered and script-free: the customer picks a
 * country (it routes the payment to a provider that serves it) and is sent to a checkout session.
 */
export function renderLinkPage(m: LinkPageModel): string {
  const state = STATE_TEXT[m.status];
  let actions: Raw = html``;
  if (m.status === 'active' && !m.paymentsEnabled) {
    actions = html`<p class="notice" role="alert">Payments are temporarily unavailable. Please try again later.</p>`;
  } else if (m.status === 'active' && m.countries.length === 0) {
    actions = html`<p class="notice" role="alert">Payments in ${m.link.currency} are not available right now.</p>`;
  } else if (m.status === 'active') {
    const options = m.countries.map(
      (c) => html`<option value="${c.code}"${c.code === m.selectedCountry ? html` selected` : ''}>${c.name}</option>`,
    );
    actions = html`
      <form method="post" action="/link/${m.link.id}/pay">
        <label for="country">Your country</label>
        <select id="country" name="country" required autocomplete="country">
          <option value="">Choose…</option>
          ${options}
        </select>
        <button type="submit" class="primary" id="pay-button">Pay ${m.amount} ${m.link.currency}</button>
      </form>`;
  }

  return hostedDocument(
    { title: `Pay ${m.merchantName}` },
    html`
  <main class="card" id="payment-link" data-link-id="${m.link.id}" data-status="${m.status}">
    <header>
      <p class="merchant" id="merchant">${m.merchantName}</p>
      <h1 class="amount"><span id="amount">${m.amount}</span> <span id="currency">${m.link.currency}</span></h1>
      ${m.link.description ? html`<p class="description" id="description">${m.link.description}</p>` : ''}
    </header>
    <section class="state state-${m.status}" aria-live="polite">
      <h2 id="status-title">${state.title}</h2>
      <p id="status" data-status="${m.status}">${state.body}</p>
      ${m.notice ? html`<p class="notice" role="alert">${m.notice}</p>` : ''}
    </section>
    <div class="actions">${actions}</div>
    <footer><p>Secure payment link · ${m.status === 'active' ? `open until ${m.link.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC` : 'closed'}</p></footer>
  </main>`,
  );
}
