import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../src/config';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/workflows/search-attributes';

// No Docker engine runs here, so the production topology is checked by reading it: every variable
// the processes need is set, and named as src/config.ts names it.
const compose = parse(readFileSync(path.resolve(__dirname, '../docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; command?: string[] | string; depends_on?: unknown; image?: string; build?: string }>;
};
const APP_SERVICES = ['service', 'worker', 'sandbox'];

/** Compose's own interpolation, for the forms this file uses: ${X}, ${X:-default}, ${X:?message}. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (env[name]) return env[name];
    if (op === '-') return arg ?? '';
    if (op === '?') throw new Error(`compose would refuse to start: ${name} ${arg ?? ''}`);
    return '';
  });
}

const operatorEnv = { ADMIN_TOKEN: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32), PUBLIC_BASE_URL: 'https://pay.example.com' };

function envOf(service: string, env: Record<string, string> = operatorEnv): Record<string, string> {
  const raw = compose.services[service]!.environment ?? {};
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), env)]));
}

describe('docker-compose.yml', () => {
  it('has the production topology', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'sandbox', 'service', 'temporal', 'temporal-setup', 'temporal-ui', 'worker'].sort());
    expect(compose.services.temporal!.image).toMatch(/^temporalio\/auto-setup:/);
    expect(compose.services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect((compose.services.worker as { deploy?: { replicas?: number } }).deploy?.replicas).toBeGreaterThan(1);
    expect(compose.services['temporal-ui']!.environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
  });

  it.each(APP_SERVICES)('%s sets only variables the config reads, and every one it requires', (service) => {
    const env = envOf(service);
    for (const name of Object.keys(env)) expect(configVariables, `${service}: ${name}`).toContain(name);
    for (const name of ['ADMIN_TOKEN', 'SECRETS_KEY', 'DATABASE_URL', 'TEMPORAL_ADDRESS']) expect(env[name], `${service}: ${name}`).toBeTruthy();
    expect(new URL(env.DATABASE_URL!).hostname).toBe('postgres');
    expect(env.TEMPORAL_ADDRESS!.split(':')[0]).toBe('temporal');
    const config = loadConfig(env);
    expect(config.allowPrivateUrls).toBe(false);
    expect(config.nodeEnv).toBe('production');
  });

  it('refuses to start without the operator’s secrets', () => {
    expect(() => envOf('service', {})).toThrow(/ADMIN_TOKEN/);
    expect(() => envOf('worker', { ADMIN_TOKEN: 'x'.repeat(32) })).toThrow(/SECRETS_KEY/);
  });

  it('would catch a misspelled variable', () => {
    const misspelled = { ...envOf('service'), TEMPORAL_ADRESS: 'temporal:7233' };
    expect(Object.keys(misspelled).filter((k) => !configVariables.includes(k))).toEqual(['TEMPORAL_ADRESS']);
  });

  it('registers exactly the search attributes the workflows use', () => {
    const command = [compose.services['temporal-setup']!.command].flat().join(' ');
    const names = /for name in ([A-Za-z ]+); do/.exec(command)?.[1]?.trim().split(/\s+/);
    expect(names?.sort()).toEqual(SEARCH_ATTRIBUTE_KEYS.map((k) => k.name).sort());
    expect(command).toContain('--type Keyword');
  });

  it('runs each entry point that exists in the repository', () => {
    for (const service of APP_SERVICES) {
      const command = [compose.services[service]!.command ?? []].flat();
      const entry = command.find((c) => c.endsWith('.ts'))!;
      expect(() => readFileSync(path.resolve(__dirname, '..', entry))).not.toThrow();
    }
  });
});
