import { describe, expect, it } from 'vitest';
import { ConfigError, DEVELOPMENT_VALUES, loadConfig } from '../../src/config';

// NODE_ENV=production refuses every development default, one variable at a time.

const secrets = { ADMIN_TOKEN: 'prod-admin-token-7f3a9c1e5b2d8f4a', SECRETS_KEY: 'cd'.repeat(32) };
const sandboxSecrets = { SANDBOX_API_KEY: 'sbx_sk_operator_chosen_1', SANDBOX_CALLBACK_SECRET: 'sbx_whsec_operator_chosen_1' };
const production = { NODE_ENV: 'production', ...secrets };

function issuesOf(env: Record<string, string>): { variable: string; message: string }[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

describe('production refuses development defaults', () => {
  it('starts with operator-chosen values, the sandbox off by default and no proxy trusted', () => {
    const c = loadConfig(production);
    expect(c.providers.sandbox.enabled).toBe(false);
    expect(c.http.trustProxy).toEqual([]);
    expect(loadConfig({ ...production, SANDBOX_ENABLED: 'true', ...sandboxSecrets }).providers.sandbox).toMatchObject({
      enabled: true,
      ...{ apiKey: sandboxSecrets.SANDBOX_API_KEY, callbackSecret: sandboxSecrets.SANDBOX_CALLBACK_SECRET },
    });
  });

  it('refuses pretty logs, whose formatter is a development dependency the image does not have', () => {
    expect(issuesOf({ ...production, LOG_FORMAT: 'pretty' })).toEqual([
      { variable: 'LOG_FORMAT', message: expect.stringContaining('production writes JSON') },
    ]);
    expect(issuesOf({ ...production, LOG_FORMAT: 'json' })).toEqual([]);
    expect(issuesOf({ ...production, NODE_ENV: 'development', LOG_FORMAT: 'pretty' })).toEqual([]);
  });

  it.each(Object.entries(DEVELOPMENT_VALUES).flatMap(([variable, values]) => values.map((value) => [variable, value] as const)))(
    'refuses %s set to its published value %s, sandbox on or off',
    (variable, value) => {
      for (const enabled of ['true', 'false']) {
        const issues = issuesOf({ ...production, SANDBOX_ENABLED: enabled, ...sandboxSecrets, [variable]: value });
        expect(issues).toEqual([{ variable, message: expect.stringContaining('published development value') }]);
      }
      // Outside production the same value is the default and is accepted.
      expect(issuesOf({ ...production, NODE_ENV: 'development', [variable]: value })).toEqual([]);
    },
  );

  it.each(['SANDBOX_API_KEY', 'SANDBOX_CALLBACK_SECRET'])(
    'does not fall back to the development %s when the sandbox is enabled',
    (variable) => {
      const env: Record<string, string> = { ...production, SANDBOX_ENABLED: 'true', ...sandboxSecrets };
      delete env[variable];
      expect(issuesOf(env)).toEqual([{ variable, message: 'is required with SANDBOX_ENABLED=true in production' }]);
      // Development still gets the published default.
      expect(loadConfig({ ...env, NODE_ENV: 'development' }).providers.sandbox.apiKey).toBeTruthy();
    },
  );

  it('refuses an admin token shorter than 24 characters', () => {
    expect(issuesOf({ ...production, ADMIN_TOKEN: 'a'.repeat(23) }).map((i) => i.variable)).toEqual(['ADMIN_TOKEN']);
    expect(issuesOf({ ...production, ADMIN_TOKEN: 'a1'.repeat(12) })).toEqual([]);
  });

  it('refuses a secrets key that is not 32 bytes', () => {
    for (const key of ['ab'.repeat(31), Buffer.alloc(16).toString('base64'), 'not-a-key']) {
      expect(issuesOf({ ...production, SECRETS_KEY: key }).map((i) => i.variable)).toEqual(['SECRETS_KEY']);
    }
  });

  it('refuses SANDBOX_ENABLED spelled as anything but a boolean', () => {
    expect(issuesOf({ ...production, SANDBOX_ENABLED: 'yes' }).map((i) => i.variable)).toEqual(['SANDBOX_ENABLED']);
  });
});

describe('TRUST_PROXY', () => {
  it('takes comma-separated addresses and CIDRs, IPv4 and IPv6', () => {
    expect(loadConfig({ ...production, TRUST_PROXY: '10.0.0.1, 172.16.0.0/12,::1,fd00::/8' }).http.trustProxy).toEqual([
      '10.0.0.1',
      '172.16.0.0/12',
      '::1',
      'fd00::/8',
    ]);
  });

  it.each(['loopback', '10.0.0.0/33', 'proxy.internal', '*', '10.0.0.1,,nope'])('refuses %s', (value) => {
    expect(issuesOf({ ...production, TRUST_PROXY: value }).map((i) => i.variable)).toEqual(['TRUST_PROXY']);
  });
});
