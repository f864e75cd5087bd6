import type { Config } from '../config';
import { createProviderRegistry, type ProviderRegistry } from './registry';
import { createSandboxAdapter } from './sandbox/adapter';

/** The providers this deployment routes payments to. A real on-ramp's adapter is added here. */
export function createProviders(config: Config): ProviderRegistry {
  // Decisions §13: the sandbox settles nothing real, so it is a provider only where it is asked for.
  return createProviderRegistry(
    config.sandbox.enabled
      ? [createSandboxAdapter({ url: config.sandbox.url, apiKey: config.sandbox.apiKey, callbackSecret: config.sandbox.callbackSecret })]
      : [],
  );
}
