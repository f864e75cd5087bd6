import type { ProviderAdapter } from './types';

export interface ProviderRegistry {
  get(name: string): ProviderAdapter | undefined;
  /** The first configured provider that serves the country and takes the currency. */
  route(countryCode: string, currency: string): ProviderAdapter | undefined;
  callbackUrl(publicBaseUrl: string, name: string): string;
  /** Origins of the providers' own payment pages (the hosted page's CSP lets forms lead there). */
  pageOrigins(): string[];
}

export function createProviderRegistry(adapters: ProviderAdapter[]): ProviderRegistry {
  const byName = new Map(adapters.map((a) => [a.name, a]));
  return {
    get: (name) => byName.get(name),
    route: (countryCode, currency) => adapters.find((a) => a.servesCountry(countryCode) && a.supportsCurrency(currency)),
    callbackUrl: (publicBaseUrl, name) => `${publicBaseUrl}/providers/${name}/callbacks`,
    pageOrigins: () => [...new Set(adapters.map((a) => a.pageOrigin))],
  };
}
