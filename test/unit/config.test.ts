import { describe, expect, it } from 'vitest';
import { ConfigError, configVariables, loadConfig } from '../../src/config';

const base = { ADMIN_TOKEN: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32) };

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config (decisions §10)', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ ...base, NODE_ENV: 'development' });
    expect(c.nodeEnv).toBe('development');
    expect(c.http).toEqual({ port: 3000, host: '127.0.0.1', publicBaseUrl: 'http://127.0.0.1:3000', bodyLimitBytes: 65536, trustProxy: [] });
    expect(c.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/svc');
    expect(c.temporal).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'checkout' });
    expect(c.sandbox).toEqual({ enabled: false, port: 3100, url: 'http://127.0.0.1:3100', apiKey: 'sbx_sk_local_development', callbackSecret: 'sbx_whsec_local_development' });
    expect(c.checkout).toEqual({ sessionTtlSeconds: 86400, amountMinMajor: 1, amountMaxMajor: 1_000_000 });
    expect(c.allowPrivateUrls).toBe(false);
    expect(c.secretsKey).toHaveLength(32);
  });

  it('derives PUBLIC_BASE_URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ ...base, PORT: '4000' }).http.publicBaseUrl).toBe('http://127.0.0.1:4000');
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://pay.example.com/' }).http.publicBaseUrl).toBe('https://pay.example.com');
  });

  it('accepts a base64 secrets key and boolean spellings', () => {
    const c = loadConfig({ ...base, SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), ALLOW_PRIVATE_URLS: 'true' });
    expect(c.secretsKey.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(c.allowPrivateUrls).toBe(true);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ ...base, PORT: '', TEMPORAL_ADDRESS: '' }).http.port).toBe(3000);
  });

  it.each([
    [{ PORT: 'notaport' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ TEMPORAL_ADDRESS: 'localhost' }, 'TEMPORAL_ADDRESS'],
    [{ SECRETS_KEY: 'short' }, 'SECRETS_KEY'],
    [{ ALLOW_PRIVATE_URLS: 'yes' }, 'ALLOW_PRIVATE_URLS'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
  ])('stops on a bad value and names the variable: %o', (env, variable) => {
    const err = configError({ ...base, ...env });
    expect(err.issues.map((i) => i.variable)).toContain(variable);
    expect(err.message).toContain(variable);
  });

  it('says which required variables are missing', () => {
    const err = configError({});
    expect(err.issues).toEqual(
      expect.arrayContaining([
        { variable: 'ADMIN_TOKEN', message: 'is required' },
        { variable: 'SECRETS_KEY', message: 'is required' },
      ]),
    );
  });

  it('lists every variable it reads', () => {
    expect(configVariables).toEqual(expect.arrayContaining(['PORT', 'HOST', 'PUBLIC_BASE_URL', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'ADMIN_TOKEN', 'SECRETS_KEY', 'SANDBOX_PORT', 'ALLOW_PRIVATE_URLS']));
  });
});
