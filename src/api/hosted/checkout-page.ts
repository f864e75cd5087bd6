import type { CheckoutSessionRow } from '../../payments/rows';
import { NETWORK_NAMES, type Network } from '../../domain/assets';
import { escapeHtml, html, raw, type Raw } from '../../domain/html';
import { paymentLabels } from '../../domain/payment-labels';
import type { ReceiptEmailAsk, RefundAddressAsk, SessionStanding } from '../../payments';
import type { CustomerStatus } from '../../payments/customer-status';
import { hostedDocument } from './document';
import type { PageText } from './i18n';
import { countdown } from './countdown';
import { receiptEmailForm, refundAddressForm } from './customer-forms';
import { walletInstructions, type WalletView } from './wallet-instructions';

export interface CheckoutPageModel {
  session: Pick<
    CheckoutSessionRow,
    | 'id'
    | 'status'
    | 'mode'
    | 'currency'
    | 'destinationAsset'
    | 'network'
    | 'successUrl'
    | 'cancelUrl'
    | 'expiresAt'
    | 'provider'
    | 'verification'
    | 'providerPaymentId'
    | 'cancelReason'
    | 'railType'
  >;
  /** The amount as a decimal string with the currency's decimals ("25.00"). */
  amount: string;
  merchantName: string | null;
  paymentsEnabled: boolean;
  /** What Postgres says of the session's standing (payments/session-standing.ts); absent: nothing stands in the way. */
  standing?: SessionStanding | undefined;
  text: PageText;
  now: Date;
  notice?: string | undefined;
  /** Money that arrived off the happy path, oldest first. */
  exceptions?: readonly { kind: string; amount: string; status?: string }[] | undefined;
  /** A failed link session: where a fresh attempt starts (the payment link's page, the country kept). */
  retryUrl?: string | null | undefined;
  /** The provider declined the last attempt and the session is still open: Pay tries again, or the wallet. */
  declined?: boolean | undefined;
  /** The wallet view's instructions, once the customer chose "pay from your wallet". */
  wallet?: WalletView | undefined;
  /** Money over, under or late is owed back: the refund address asked for (payments/refund-addresses.ts). */
  refund?: RefundAddressAsk | null | undefined;
  /** The receipt email form (payments/receipt-emails.ts); null: not offered. */
  receipt?: ReceiptEmailAsk | null | undefined;
  /** What the live status stream says now (payments/customer-status.ts): the page and its events agree. */
  live?: CustomerStatus | undefined;
}

/** Stripe's placeholder: a success URL may carry the session id back to the merchant's page. */
export const withSessionId = (url: string, id: string) => url.replaceAll('{CHECKOUT_SESSION_ID}', id);

// Seconds between reloads for browsers without JavaScript: quick while a payment is being confirmed,
// slow while the customer reads the page (the countdown and expiry still show up to date).
export const WAITING_REFRESH_S = 5;
export const READING_REFRESH_S = 60;
const SUCCESS_REDIRECT_S = 3;

/**
 * Money that arrived but could not pay the checkout as it stood. The customer is told
 * plainly that it arrived and that the merchant was told, never to start again (they would pay twice).
 */
function exceptionText(
  text: PageText,
  exceptions: readonly { kind: string; amount: string; status?: string }[],
  asset: string,
  /** The page asks for a refund address (money is owed back and nobody decided otherwise yet). */
  asksRefund: boolean,
): { title: string; body: string } | null {
  const { t } = text;
  const money = exceptions.filter((e) => e.kind !== 'overpaid');
  const last = money[money.length - 1];
  if (!last) {
    // The extra goes back to the address the form below holds; once sent, the page says so.
    const extra = exceptions[exceptions.length - 1];
    const key =
      extra?.status === 'refunded'
        ? 'checkout.exceptions.overpaidRefunded'
        : asksRefund
          ? 'checkout.exceptions.overpaid'
          : 'checkout.exceptions.overpaidTold';
    return extra ? { title: t('checkout.exceptions.overpaidTitle'), body: t(key, { amount: text.crypto(extra.amount), asset }) } : null;
  }
  const lead = ['late', 'duplicate', 'underpaid', 'unverified'].includes(last.kind)
    ? `checkout.exceptions.${last.kind}`
    : 'checkout.exceptions.arrived';
  // Sent back on chain by an operator: the customer learns where the money went.
  const next = last.status === 'refunded' ? 'checkout.exceptions.refunded' : 'checkout.exceptions.safe';
  return { title: t('checkout.exceptions.title'), body: `${t(lead)} ${t(next, { amount: text.crypto(last.amount), asset })}` };
}

/**
 * The hosted checkout page (docs/hosted-pages.md). Server-rendered and complete without JavaScript (it
 * reloads itself while the session is open); a small script polls, counts down, copies and
 * redirects. It never marks anything paid: only the workflow does, from a confirmed transfer into
 * the deposit address (or the provider's word on networks without a verifier).
 */
export function renderCheckoutPage(m: CheckoutPageModel): string {
  const { session, text } = m;
  const { t } = text;
  const merchant = m.merchantName ?? t('common.theMerchant');
  const readOnly = session.mode === 'test';
  // Money is owed back and the page asks where to: the customer stays to answer, so no
  // redirect takes the form away; the way back to the merchant is a link they follow when done.
  const asksRefund = m.refund != null && !readOnly;
  // Back from the provider's page before its callback: the payment is with the provider, so the
  // first render says so rather than offering Pay again.
  const declined = session.status === 'pending' && m.declined === true;
  const awaiting = session.status === 'pending' && session.providerPaymentId !== null && !declined;
  const retry = session.status === 'failed' && m.retryUrl ? m.retryUrl : null;
  // Another session paid the link. Said at once from Postgres, before (and after) this
  // session's run has ended it, so a second tab is never offered a second payment.
  const linkPaid =
    (session.status === 'pending' && m.standing?.linkPaid === true) ||
    (session.status === 'canceled' && session.cancelReason === 'link_paid');
  // A merchant pending review or suspended takes no new money.
  const merchantPaused = session.status === 'pending' && !linkPaid && m.standing?.merchantApproved === false;
  const open = !readOnly && !linkPaid && (session.status === 'pending' || session.status === 'processing');
  const payable = !readOnly && session.status === 'pending' && !linkPaid && !merchantPaused;
  const live = m.live;
  // Seen on chain, not yet confirmed: the customer sees it counted, block by block.
  const confirming = open && live?.confirmations != null;
  // Part of the amount arrived: what is left goes to the same address (never "send exactly" the whole again).
  const partly = open && !confirming && live?.remaining != null && live.received !== null;
  const stateKey = readOnly
    ? 'test'
    : linkPaid
      ? 'linkPaid'
      : merchantPaused
        ? 'merchantUnavailable'
        : confirming
          ? 'confirming'
          : payable && !m.paymentsEnabled
            ? 'paymentsPaused'
            : partly
              ? 'partlyPaid'
              : awaiting
                ? 'awaiting'
                : session.status === 'pending' && m.wallet
                  ? 'walletOpen'
                  : retry || declined
                    ? 'failedRetry'
                    : session.status;
  const exception = readOnly ? null : exceptionText(text, m.exceptions ?? [], session.destinationAsset, asksRefund);
  const network = NETWORK_NAMES[session.network as Network] ?? session.network;
  const price = text.money(m.amount, session.currency);
  // A wallet payment names no provider.
  const labels = paymentLabels(session);
  const returnUrl = session.status === 'completed' && session.successUrl ? withSessionId(session.successUrl, session.id) : null;
  const successUrl = asksRefund ? null : returnUrl;

  let actions: Raw = html``;
  const cancelForm = html`<form method="post" action="/pay/${session.id}/cancel">
        <button type="submit" class="secondary" id="cancel-button">${t('checkout.cancel', { merchant })}</button>
      </form>`;
  if (payable && m.paymentsEnabled && m.wallet) {
    // The wallet view offers the wallet rail only. The provider is one step back, on the session's
    // own page, until money is on its way to the deposit address (then the rest goes there too).
    actions = html`${
      !confirming && !partly
        ? html`<a class="secondary button" id="choose-provider" href="/pay/${session.id}">${t('checkout.payWithPartnerInstead')}</a>`
        : ''
    }
      ${cancelForm}`;
  } else if (payable && m.paymentsEnabled) {
    actions = html`
      <form method="post" action="/pay/${session.id}/start">
        <button type="submit" class="${awaiting ? 'secondary' : 'primary'}" id="pay-button">${awaiting ? t('checkout.continueWithPartner') : declined ? t('checkout.tryAgain') : t('checkout.pay', { amount: price })}</button>
      </form>
      ${
        session.verification === 'chain' && !awaiting
          ? html`<form method="post" action="/pay/${session.id}/wallet">
        <button type="submit" class="secondary" id="wallet-button">${t('checkout.payFromWallet', { asset: session.destinationAsset, network })}</button>
      </form>`
          : ''
      }
      ${cancelForm}`;
  } else if (returnUrl) {
    actions = html`${successUrl ? html`<p id="redirecting">${t('checkout.redirecting', { merchant })}</p>` : ''}
      <a class="primary button" id="return-link" href="${returnUrl}">${t('checkout.returnTo', { merchant })}</a>`;
  } else if (retry) {
    actions = html`<a class="primary button" id="retry-link" href="${retry}">${t('checkout.tryAgain')}</a>
      ${session.cancelUrl ? html`<a class="secondary button" id="back-link" href="${withSessionId(session.cancelUrl, session.id)}">${t('checkout.backTo', { merchant })}</a>` : ''}`;
  } else if (
    (session.status === 'canceled' || session.status === 'expired' || session.status === 'failed' || linkPaid || merchantPaused) &&
    session.cancelUrl
  ) {
    actions = html`<a class="secondary button" id="back-link" href="${withSessionId(session.cancelUrl, session.id)}">${t('checkout.backTo', { merchant })}</a>`;
  }

  // Without JavaScript: quick while money is on its way, slow while the customer reads, and slow still
  // once the session ended (late money and its refund are news too); never on a paid page. The wallet
  // view counts as on its way whatever its state says (an earlier card decline, say): the customer is
  // sending, and a transfer confirmed but not yet credited shows no change for a moment, which a slow
  // refresh would hold for a minute.
  const waiting = awaiting || confirming || partly || session.status === 'processing' || (open && m.wallet !== undefined);
  const refresh = successUrl
    ? { seconds: SUCCESS_REDIRECT_S, url: successUrl }
    : open
      ? { seconds: waiting ? WAITING_REFRESH_S : READING_REFRESH_S }
      : readOnly || session.status === 'completed'
        ? undefined
        : { seconds: READING_REFRESH_S };
  const stateVars = {
    received: live?.received ? text.crypto(live.received) : '',
    remaining: live?.remaining ? text.crypto(live.remaining) : '',
    asset: session.destinationAsset,
  };
  // The clock runs only while it means something: money can still be sent, or is on its way. Not on a
  // page that says no payment is taken (kill switch, merchant paused, link paid elsewhere).
  const counting = open && !merchantPaused && (m.paymentsEnabled || waiting);
  const lastException = live?.exception ? `${live.exception.kind}:${live.exception.status}` : '';

  return hostedDocument(
    { title: t('checkout.title', { merchant }), scripts: ['/pay/assets/live.js', '/pay/assets/checkout.js'], lang: text.locale, refresh },
    html`
  <main class="card" id="checkout" data-session-id="${session.id}" data-status="${session.status}" data-received="${live?.received ?? ''}" data-remaining="${live?.remaining ?? ''}" data-confirming="${live?.confirmations != null ? '1' : '0'}" data-exception="${lastException}" data-declined="${live?.declined ? '1' : '0'}"${successUrl ? html` data-redirect-url="${successUrl}" data-redirect-after="${SUCCESS_REDIRECT_S}"` : ''}${readOnly ? '' : html` data-events="/api/v1/checkout/sessions/${session.id}/events"`}>
    <header>
      <p class="merchant">${merchant}</p>
      <h1 class="amount"><span id="amount">${text.amount(m.amount, session.currency)}</span> <span id="currency">${session.currency}</span></h1>
    </header>
    <dl class="details">
      <div><dt>${t('checkout.paidIn')}</dt><dd id="destination">${t('checkout.paidInValue', { asset: session.destinationAsset, network })}</dd></div>
      ${
        labels.provider === null
          ? html`<div><dt>${t('checkout.paidFrom')}</dt><dd id="paid-through" data-rail="${labels.railType}">${t('checkout.ownWallet')}</dd></div>`
          : html`<div><dt>${t('checkout.paidThrough')}</dt><dd id="paid-through" data-rail="${labels.railType}">${labels.provider}</dd></div>`
      }
      <div><dt>${t('checkout.reference')}</dt><dd class="mono">${session.id}</dd></div>
    </dl>
    <section class="state state-${session.status}" aria-live="polite">
      <h2 id="status-title">${exception?.title ?? t(`checkout.states.${stateKey}.title`)}</h2>
      <p id="status" data-status="${session.status}"${m.exceptions && m.exceptions.length > 0 ? html` data-exception="${m.exceptions[m.exceptions.length - 1]!.kind}"` : ''}>${exception?.body ?? (confirming ? confirmingText(text, live) : t(`checkout.states.${stateKey}.body`, stateVars))}</p>
      ${m.notice ? html`<p class="notice" role="alert">${m.notice}</p>` : ''}
    </section>
    ${m.wallet && open ? walletInstructions(m.wallet, network, text, partly ? live.remaining! : undefined) : ''}
    ${m.refund && !readOnly ? refundAddressForm(session.id, m.refund, network, text) : ''}
    ${m.receipt && !readOnly && !linkPaid ? receiptEmailForm(session.id, m.receipt, m.wallet !== undefined, text) : ''}
    <div class="actions">${actions}</div>
    <footer><p>${t('common.secureCheckout')}${counting ? html` · ${countdown(session.expiresAt, m.now, text)}` : ''}</p></footer>
  </main>`,
  );
}

/** "n of N confirmations", the numbers in elements the page's script updates in place between reloads. */
function confirmingText(text: PageText, live: CustomerStatus): Raw {
  return withMarkup(text.t, 'checkout.states.confirming.body', {
    n: html`<span id="confirmations">${text.amount(String(live.confirmations))}</span>`,
    required: html`<span id="required-confirmations">${text.amount(String(live.requiredConfirmations))}</span>`,
  });
}

/**
 * A translation whose placeholders are markup (elements with ids the script and tests read): the
 * translation's own text is escaped, each {{name}} becomes parts[name], in whatever order the language puts them.
 */
export function withMarkup(t: PageText['t'], key: string, parts: Record<string, Raw>): Raw {
  const marks = Object.fromEntries(Object.keys(parts).map((name) => [name, `\u0000${name}\u0000`]));
  const translated: string = t(key, marks);
  return raw(
    translated
      .split('\u0000')
      .map((piece, i) => (i % 2 === 1 ? (parts[piece]?.html ?? '') : escapeHtml(piece)))
      .join(''),
  );
}

export function renderMessagePage(title: string, body: string, back?: string, lang?: string): string {
  return hostedDocument(
    { title, lang },
    html`
  <main class="card">
    <section class="state"><h1>${title}</h1><p>${body}</p></section>
    ${back ? html`<div class="actions"><a class="secondary button" href="${back}">Back to checkout</a></div>` : ''}
  </main>`,
  );
}
