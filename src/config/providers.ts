import { z } from 'zod';
import { booleanFlag, httpUrl, port } from './parse';
import { DEVELOPMENT_DEFAULTS } from './production';

// The payment providers this deployment may route to: today the sandbox, a separate service that
// plays a fiat-to-stablecoin on-ramp.

export const providerVariables = {
  SANDBOX_PORT: port.default(3100),
  // How the service reaches the sandbox provider's API (default: 127.0.0.1 on SANDBOX_PORT).
  SANDBOX_URL: httpUrl.optional(),
  // Where customers' browsers reach the sandbox's payment pages (default: SANDBOX_URL).
  SANDBOX_PUBLIC_URL: httpUrl.optional(),
  // The sandbox's test credentials: shared by the sandbox and the service like a real provider's
  // API key and callback signing secret. Outside production they default to published values.
  SANDBOX_API_KEY: z.string().min(8).optional(),
  SANDBOX_CALLBACK_SECRET: z.string().min(16).optional(),
  // The sandbox provider (its adapter here, its process, its test helpers) runs only when this is true.
  SANDBOX_ENABLED: booleanFlag.default(false),
};

/** The payment providers this deployment may route to, each with its own settings. */
export interface ProviderSettings {
  /** apiKey and callbackSecret are empty only when the sandbox is disabled in production. */
  /** url: how the service reaches its API; publicUrl: what customers' browsers are sent to. */
  sandbox: { enabled: boolean; port: number; url: string; publicUrl: string; apiKey: string; callbackSecret: string };
}

export function providerSettingsOf(e: z.output<z.ZodObject<typeof providerVariables>>, production: boolean): ProviderSettings {
  const url = (e.SANDBOX_URL ?? `http://127.0.0.1:${e.SANDBOX_PORT}`).replace(/\/+$/, '');
  const devDefault = (name: string) => (production ? '' : (DEVELOPMENT_DEFAULTS[name] ?? ''));
  return {
    sandbox: {
      enabled: e.SANDBOX_ENABLED,
      port: e.SANDBOX_PORT,
      url,
      publicUrl: (e.SANDBOX_PUBLIC_URL ?? url).replace(/\/+$/, ''),
      apiKey: e.SANDBOX_API_KEY ?? devDefault('SANDBOX_API_KEY'),
      callbackSecret: e.SANDBOX_CALLBACK_SECRET ?? devDefault('SANDBOX_CALLBACK_SECRET'),
    },
  };
}
