import { isFiatCurrency } from '../../domain/currencies';

// What the sandbox provider publishes as its coverage, as a real on-ramp documents its licensed
// countries: the adapter routes on it without calling the provider. Sanctioned or unserved
// jurisdictions (KP, IR, CU, SY, RU, …) are absent, so the 422 for an unserved country can be exercised.
export const SANDBOX_COUNTRIES: ReadonlySet<string> = new Set([
  'US', 'CA', 'MX', 'BR', 'AR', 'CL', 'CO', 'PE',
  'GB', 'IE', 'FR', 'DE', 'ES', 'IT', 'PT', 'NL', 'BE', 'LU', 'AT', 'CH',
  'SE', 'NO', 'DK', 'FI', 'IS', 'PL', 'CZ', 'SK', 'HU', 'RO', 'BG', 'HR', 'SI', 'EE', 'LV', 'LT', 'GR', 'CY', 'MT',
  'AU', 'NZ', 'JP', 'SG', 'HK', 'KR', 'ZA', 'IL', 'AE',
]);

export const sandboxServesCountry = (countryCode: string) => SANDBOX_COUNTRIES.has(countryCode.toUpperCase());
export const sandboxSupportsCurrency = (currency: string) => isFiatCurrency(currency.toUpperCase());
