import type { Config } from '../config';
import { createProviderRegistry, type ProviderRegistry } from './registry';
import { createSandboxAdapter } from './sandbox/adapter';

/** The providers this deployment routes payments to. A real on-ramp's adapter is added here. */
export function createProviders(config: Config): ProviderRegistry {
  return createProviderRegistry([
    createSandboxAdapter({ url: config.sandbox.url, apiKey: config.sandbox.apiKey, callbackSecret: config.sandbox.callbackSecret }),
  ]);
}
