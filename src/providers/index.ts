import type { Config } from '../config';
import { createProviderRegistry, type ProviderRegistry } from './registry';
import { createSandboxAdapter } from './sandbox/adapter';

/** How long the API lets a provider call take: a customer is waiting, and Pay must answer within 5 s. */
export const API_PROVIDER_TIMEOUT_MS = 3000;

/**
 * The providers this deployment routes payments to. A real on-ramp's adapter is added here. The API
 * passes a short per-request timeout (a customer waits on it); the worker keeps the adapters' own.
 */
export function createProviders(config: Config, options: { timeoutMs?: number } = {}): ProviderRegistry {
  // The sandbox settles nothing real, so it is a provider only where it is asked for.
  return createProviderRegistry(
    config.providers.sandbox.enabled
      ? [
          createSandboxAdapter({
            url: config.providers.sandbox.url,
            publicUrl: config.providers.sandbox.publicUrl,
            apiKey: config.providers.sandbox.apiKey,
            callbackSecret: config.providers.sandbox.callbackSecret,
            ...options,
          }),
        ]
      : [],
  );
}
