import { describe, expect, it } from 'vitest';
import { negotiateLocale } from '../../src/domain/locales';
import { CATALOGUES, pageText } from '../../src/api/hosted/i18n';

describe('the hosted pages’ languages', () => {
  it('picks the best-weighted language we have from Accept-Language, else English', () => {
    expect(negotiateLocale('pt-BR,pt;q=0.9,en;q=0.8')).toBe('pt');
    expect(negotiateLocale('it-IT,it;q=0.9,fr;q=0.5,de;q=0.7')).toBe('de');
    expect(negotiateLocale('ES')).toBe('es');
    expect(negotiateLocale('de;q=0, fr')).toBe('fr');
    expect(negotiateLocale('ja, *;q=0.1')).toBe('en');
    expect(negotiateLocale(undefined)).toBe('en');
    expect(negotiateLocale(';;;q=x,,')).toBe('en');
  });

  it('has every English key, and no empty text, in every catalogue', () => {
    const keys = (o: object, prefix = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v as object, `${prefix}${k}.`)));
    const english = keys(CATALOGUES.en).sort();
    for (const [locale, catalogue] of Object.entries(CATALOGUES)) {
      expect(keys(catalogue).sort(), locale).toEqual(english);
      expect(
        keys(catalogue).filter(
          (k) =>
            !pageText(locale as 'en')
              .t(k)
              .trim(),
        ),
        locale,
      ).toEqual([]);
    }
  });

  it('formats amounts and dates in the customer’s conventions, exactly', () => {
    expect(pageText('de').amount('1234567.89', 'EUR')).toBe('1.234.567,89');
    expect(pageText('en').amount('1234567.89', 'EUR')).toBe('1,234,567.89');
    expect(pageText('en').amount('900719925474099.99', 'USD')).toBe('900,719,925,474,099.99');
    expect(pageText('fr').amount('1500', 'JPY').replace(/\s/g, ' ')).toBe('1 500');
    expect(pageText('pt').t('checkout.states.completed.title')).toBe('Pagamento recebido');
    expect(pageText('es').dateTime(new Date('2026-11-23T17:05:00Z'))).toMatch(/23.*nov.*2026.*17:05.*UTC/);
  });
});
