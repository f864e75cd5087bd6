import { describe, expect, it } from 'vitest';
import { findSimpleOrder } from '../../src/db/queries/simple-orders';
import { CATALOGUES, pageText } from '../../src/api/hosted/i18n';
import { renderSimplePage } from '../../src/api/hosted/simple-page';
import { useTestApp } from '../support/harness';

// The simple API's hosted page in the customer's language (Accept-Language; a simple order has no
// locale of its own), with amounts and dates in that language's conventions. No worker: the page
// and a rail's instructions need none.
const ctx = useTestApp({}, { sandbox: true });

const customer = {
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  crypto_currency: 'USDC',
  crypto_currency_network: 'POLYGON',
};
const ENGLISH_TITLES = [...new Set(Object.values(CATALOGUES.en.simple.states).map((s) => s.title))];

async function order(body: Record<string, unknown> = {}): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/checkout',
    payload: { fiat_amount: 1234.5, fiat_currency: 'EUR', customer, ...body },
  });
  expect(res.statusCode).toBe(201);
  return res.json().data.transaction_code as string;
}

async function page(url: string, acceptLanguage?: string) {
  const res = await ctx.app.inject({ method: 'GET', url, headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
  // Intl separates with no-break spaces (fr, and before a currency symbol); compare them as spaces.
  return { status: res.statusCode, vary: String(res.headers.vary ?? ''), text: res.body.replace(/\s/g, ' ') };
}

describe('the simple hosted page’s languages', () => {
  it('speaks German to a German browser, with German amounts and no English left', async () => {
    const code = await order();
    const de = await page(`/pay/${code}`, 'de-DE,de;q=0.9');
    expect(de.status).toBe(200);
    expect(de.vary).toContain('accept-language');
    expect(de.text).toContain('<html lang="de">');
    expect(de.text).toContain('<title>1.234,50 € bezahlen</title>');
    expect(de.text).toContain('<h2 id="status-title">Wählen Sie, wie Sie bezahlen möchten</h2>');
    expect(de.text).toContain('Wählen Sie unten eine Zahlungsart.');
    expect(de.text).toContain('<span id="amount">1.234,50</span> <span id="currency">EUR</span>');
    // Fiat with two decimals in the language's conventions; stablecoins without zeros past their significant decimals.
    expect(de.text).toMatch(/≈ <span id="amount-usd">1\.\d{3},\d{2}\s\$<\/span>/);
    expect(de.text).toContain('<dt>Gutschrift auf</dt>');
    expect(de.text).toContain('<dd id="destination">USDC auf Polygon</dd>');
    expect(de.text).toContain('<h3>Karte oder Überweisung</h3>');
    expect(de.text).toContain('id="rail-card">Karte: 1.234,50 € bezahlen</button>');
    expect(de.text).toContain('id="rail-bank_transfer">Banküberweisung: 1.234,50 € bezahlen</button>');
    expect(de.text).toContain('<h3>Kryptowährungen</h3>');
    expect(de.text).toMatch(/id="rail-usdt_tron" href="[^"]+">USDT auf Tron: 1\.\d{3},\d{2,6} USDT<\/a>/);
    expect(de.text).not.toMatch(/\d,\d*0 USDT/);
    expect(de.text).toMatch(/Sicherer Bezahlvorgang · läuft ab am \d+\. \w+\.? 20\d\d, \d\d:\d\d UTC/);
    for (const english of [
      ...ENGLISH_TITLES,
      'Pick a payment method',
      'Card or bank',
      'Delivered to',
      'Secure checkout',
      ': pay ',
      ' on Tron',
      'expires',
    ]) {
      expect(de.text, english).not.toContain(english);
    }
  });

  it('gives a crypto rail’s instructions in German, the ids the script and tests read kept', async () => {
    const code = await order();
    const de = await page(`/pay/${code}?method=usdt_tron`, 'de-DE,de;q=0.9');
    expect(de.status).toBe(200);
    expect(de.text).toContain('aria-label="Zahlungsanweisungen"');
    expect(de.text).toMatch(
      /<h3>Senden Sie genau <span id="deposit-amount">1\.\d{3},\d{2,6}<\/span> <span id="deposit-asset">USDT<\/span> auf <span id="deposit-network">Tron<\/span><\/h3>/,
    );
    expect(de.text).toContain('aria-label="QR-Code der Überweisung: ');
    expect(de.text).toContain('<p>An diese Adresse:</p>');
    expect(de.text).toContain('data-copied="Kopiert" hidden>Adresse kopieren</button>');
    expect(de.text).toContain('Senden Sie nur USDT auf Tron.');
    // One expiry on the page: the footer's.
    expect(de.text.match(/\d\d:\d\d UTC/g)).toHaveLength(1);
    // The wallet URI keeps the amount as wallets read it.
    expect(de.text).toMatch(/data-uri="tron:T\w+\?amount=\d+(\.\d+)?&amp;token=/);
  });

  it('speaks French, Spanish and Portuguese, each with its own number conventions', async () => {
    const code = await order();
    const fr = await page(`/pay/${code}`, 'fr-FR,fr;q=0.9,en;q=0.5');
    expect(fr.text).toContain('<html lang="fr">');
    expect(fr.text).toContain('<h2 id="status-title">Choisissez comment payer</h2>');
    expect(fr.text).toContain('<span id="amount">1 234,50</span>');
    expect(fr.text).toContain('id="rail-card">Carte bancaire : payer 1 234,50 €</button>');
    expect(fr.text).toContain('<dd id="destination">USDC sur Polygon</dd>');
    expect(fr.text).toMatch(/≈ <span id="amount-usd">1\s\d{3},\d{2}\s\$US<\/span>/);

    const es = await page(`/pay/${code}`, 'es-ES');
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('<h2 id="status-title">Elija cómo pagar</h2>');
    expect(es.text).toContain('id="rail-bank_transfer">Transferencia bancaria: pagar');

    const pt = await page(`/pay/${code}`, 'pt-BR,pt;q=0.9');
    expect(pt.text).toContain('<html lang="pt">');
    expect(pt.text).toContain('<h2 id="status-title">Escolha como pagar</h2>');
    expect(pt.text).toContain('<h3>Criptomoedas</h3>');
    expect(pt.text).toContain('Pagamento seguro · válido até');
    for (const english of ENGLISH_TITLES) {
      expect(fr.text + es.text + pt.text, english).not.toContain(english);
    }
  });

  it('falls back to English for a language it does not have, or none', async () => {
    const code = await order();
    for (const lang of ['ja-JP,ja;q=0.9', 'it', undefined]) {
      const en = await page(`/pay/${code}`, lang);
      expect(en.status, lang).toBe(200);
      expect(en.text, lang).toContain('<html lang="en">');
      expect(en.text, lang).toContain('<h2 id="status-title">Choose how to pay</h2>');
      expect(en.text, lang).toContain('<span id="amount">1,234.50</span>');
      expect(en.text, lang).toContain('id="rail-card">Card: pay €1,234.50</button>');
      expect(en.text, lang).toContain('<dt>Delivered to</dt>');
    }
    // What the browser test reads on an English page stays as it was.
    const small = await order({ fiat_amount: 25 });
    const choosing = await page(`/pay/${small}?method=usdt_tron`);
    expect(choosing.text).toContain('<span id="amount">25.00</span> <span id="currency">EUR</span>');
    expect(choosing.text).toContain('≈ <span id="amount-usd">$27.00</span>');
    expect(choosing.text).toContain(
      '<h3>Send exactly <span id="deposit-amount">27.00</span> <span id="deposit-asset">USDT</span> on <span id="deposit-network">Tron</span></h3>',
    );
    expect(choosing.text).toContain('id="rail-usdt_tron" href="/pay/');
    expect(choosing.text).toContain('>USDT on Tron: 27.00 USDT</a>');
  });

  it('names every state in German, none in English (the chain-proven settled state too)', async () => {
    const code = await order({ success_url: 'https://shop.example/thanks', cancel_url: 'https://shop.example/cart' });
    const row = (await findSimpleOrder(ctx.db.db, code))!;
    const text = pageText('de');
    const cases = [
      // Payments are disabled here: the pending page is the kill switch's, said once, with no "choose how to pay" above it.
      { status: 'pending', payoutDispatched: false, title: 'Zahlungen pausiert', body: 'Zahlungen sind vorübergehend nicht möglich' },
      { status: 'processing', payoutDispatched: false, title: 'Zahlung in Bearbeitung' },
      {
        status: 'settled',
        payoutDispatched: true,
        title: 'Zahlung erhalten',
        body: 'Der Betrag wurde an Ihre Wallet gesendet.',
        action: 'Zurück zum Shop',
      },
      { status: 'settled', payoutDispatched: false, title: 'Zahlung erhalten', body: 'auf dem Weg zu Ihrer Wallet' },
      { status: 'failed', payoutDispatched: false, title: 'Zahlung fehlgeschlagen', action: 'Zurück zum Shop' },
      { status: 'expired', payoutDispatched: false, title: 'Bezahlvorgang abgelaufen' },
    ] as const;
    for (const c of cases) {
      const html = renderSimplePage({
        order: { ...row, status: c.status, payoutDispatched: c.payoutDispatched },
        fiatAmount: '1234.50',
        usdAmount: '1333.260000',
        options: [],
        paymentsEnabled: false,
        text,
      });
      const label = `${c.status}${c.payoutDispatched ? ' (paid out)' : ''}`;
      expect(html, label).toContain('<html lang="de">');
      expect(html, label).toContain(`<h2 id="status-title">${c.title}</h2>`);
      if ('body' in c) expect(html, label).toContain(c.body);
      if ('action' in c) expect(html, label).toContain(`${c.action}</a>`);
      if (c.status === 'pending') expect(html, label).not.toContain('Wählen Sie, wie Sie bezahlen möchten');
      expect(html.match(/vorübergehend nicht möglich/g)?.length ?? 0, label).toBeLessThanOrEqual(1);
      for (const english of [...ENGLISH_TITLES, 'Return to the shop', 'Back to the shop', 'Payments are temporarily unavailable']) {
        expect(html, `${label}: ${english}`).not.toContain(english);
      }
    }
  });

  it('tells what went wrong, and that a checkout is unknown, in the customer’s language', async () => {
    const code = await order();
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: `/pay/${code}/start`,
      headers: { 'accept-language': 'de', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'payment_method=cheque',
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('<p class="notice" role="alert">Unbekannte Zahlungsart.</p>');

    const missing = await page(`/pay/${crypto.randomUUID()}`, 'fr');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('<html lang="fr">');
    expect(missing.text).toContain('<h1>Paiement introuvable</h1>');
    expect(missing.text).toContain('Ce lien de paiement n’est pas valide. Veuillez retourner sur la boutique.');
  });

  it('leaves the simple API’s JSON as it was, whatever the browser’s language', async () => {
    const options = await ctx.app.inject({
      method: 'GET',
      url: '/api/payment_options?fiat_amount=25&fiat_currency=EUR',
      headers: { 'accept-language': 'de' },
    });
    const list = options.json().data.payment_options as { slug: string; name: string; amount: string }[];
    expect(list.find((o) => o.slug === 'card')).toMatchObject({ name: 'Card', amount: '25.00' });
    expect(list.find((o) => o.slug === 'usdt_tron')).toMatchObject({ name: 'USDT on Tron', amount: '27.000000' });
  });
});
