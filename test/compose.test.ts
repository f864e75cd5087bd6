import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { compiledEntry, entryCommandArgs } from '../tools/dev/entry-command';
import { TEMPORAL_SERVER_VERSION } from '../tools/temporal/server/binaries';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/workflows/search-attributes';
import {
  COMPOSE_TEXT,
  commandOf,
  dependencies,
  envOf,
  envProblems,
  interpolate,
  interpolateAll,
  loadCompose,
  OPERATOR_ENV,
  parseYaml,
  read,
  requiredByConfig,
  ROOT,
  serviceOf,
  type Env,
} from './support/compose-file';

// No Docker engine runs here, so the production topology is checked by reading it as compose would:
// YAML with merge keys, then variable interpolation, then the same loadConfig the processes call.

const hostOf = (address: string) => address.replace(/:\d+$/, '');
const EXPECTED_SERVICES = ['postgres', 'temporal', 'temporal-setup', 'temporal-ui', 'service', 'worker'];
// Built from our Dockerfile and run with our config; the sandbox provider shares the image.
const APP_SERVICES = ['service', 'worker', 'sandbox'];
const ENTRY_POINTS: Record<string, string> = { service: 'server.ts', worker: 'worker.ts', sandbox: 'sandbox.ts' };

describe('compose interpolation as the test does it', () => {
  it('follows compose for defaults, required values and escapes', () => {
    expect(interpolate('${A:-d} ${A-d}', { A: '' })).toBe('d ');
    expect(interpolate('${B:-d}|${B-d}|$B|${B}', {})).toBe('d|d||');
    expect(interpolate('${A:+alt}${C+alt}', { A: '', C: '' })).toBe('alt');
    expect(interpolate('$$name $${X}', { name: 'no' })).toBe('$name ${X}');
    expect(() => interpolate('${A:?set A}', { A: '' })).toThrow(/A: set A/);
    expect(interpolate('${A?set A}', { A: '' })).toBe('');
    expect(() => interpolate('${A:-${B}}', {})).toThrow(/invalid interpolation/);
    expect(() => interpolate('cost: 5$', {})).toThrow(/invalid interpolation/);
  });
});

describe('docker-compose.yml', () => {
  const compose = loadCompose();

  it('has the production topology', () => {
    // The sandbox provider is part of it until a real provider's adapter replaces it.
    expect(Object.keys(compose.services).sort()).toEqual([...EXPECTED_SERVICES, 'sandbox'].sort());
    expect(serviceOf(compose, 'worker').deploy?.replicas).toBeGreaterThanOrEqual(2);
    for (const name of APP_SERVICES) {
      const service = serviceOf(compose, name);
      const context = typeof service.build === 'string' ? service.build : service.build?.context;
      expect(context, `${name} is built from the Dockerfile`).toBe('.');
      // Compiled JavaScript (`npm run build`), the worker with its Node flags (tools/dev/entry-command.ts).
      expect(service.command, name).toEqual(['node', ...entryCommandArgs(compiledEntry(ENTRY_POINTS[name]!))]);
      expect(existsSync(path.join(ROOT, ENTRY_POINTS[name] ?? '')), `${name}: ${ENTRY_POINTS[name]}`).toBe(true);
    }
  });

  it('keeps Postgres on a named volume and reports its health', () => {
    const postgres = serviceOf(compose, 'postgres');
    expect(postgres.image).toMatch(/^postgres:16(\.|$|-)/);
    expect(postgres.healthcheck?.test).toBeDefined();
    const mount = postgres.volumes?.find((v) =>
      typeof v === 'string' ? v.endsWith(':/var/lib/postgresql/data') : v.target === '/var/lib/postgresql/data',
    );
    const source = typeof mount === 'string' ? mount.split(':')[0] : mount?.source;
    expect(Object.keys(compose.volumes ?? {})).toContain(source);
  });

  it('persists Temporal in that Postgres, with the credentials Postgres is given', () => {
    const temporal = serviceOf(compose, 'temporal');
    const pg = envOf(serviceOf(compose, 'postgres'));
    const env = envOf(temporal);
    expect(temporal.image).toMatch(/^temporalio\/auto-setup:/);
    expect(env).toMatchObject({
      DB: 'postgres12',
      DB_PORT: '5432',
      POSTGRES_SEEDS: 'postgres',
      POSTGRES_USER: pg.POSTGRES_USER,
      POSTGRES_PWD: pg.POSTGRES_PASSWORD,
    });
    expect(pg.POSTGRES_PASSWORD).toBe(OPERATOR_ENV.POSTGRES_PASSWORD);
    expect(dependencies(temporal)).toMatchObject({ postgres: 'service_healthy' });
  });

  it('starts each service after what it needs, and every dependency can be waited for', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [target, condition] of Object.entries(dependencies(service))) {
        const dep = serviceOf(compose, target);
        if (condition === 'service_healthy') expect(dep.healthcheck?.test, `${name} waits for ${target}'s health`).toBeDefined();
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      Object.keys(dependencies(serviceOf(compose, from))).some((d) => {
        if (d === to) return true;
        if (seen.has(d)) return false;
        seen.add(d);
        return reaches(d, to, seen);
      });
    for (const name of ['service', 'worker']) {
      expect(dependencies(serviceOf(compose, name)), name).toMatchObject({ postgres: 'service_healthy' });
      expect(reaches(name, 'temporal'), `${name} starts after Temporal`).toBe(true);
      // A one-shot's "started" is no promise that it finished: wait for its success.
      expect(dependencies(serviceOf(compose, name))['temporal-setup'], `${name} starts after the search attributes exist`).toBe(
        'service_completed_successfully',
      );
    }
    expect(dependencies(serviceOf(compose, 'temporal-setup'))).toMatchObject({ temporal: 'service_healthy' });
  });

  it('gives the config every variable it requires, as names it reads', () => {
    const required = requiredByConfig();
    expect(required).toEqual(expect.arrayContaining(['ADMIN_TOKEN', 'SECRETS_KEY']));
    for (const name of ['service', 'worker']) {
      for (const variable of required) expect(envOf(serviceOf(compose, name))[variable], `${name}: ${variable}`).toBeTruthy();
    }
  });

  it.each(APP_SERVICES)('%s: its environment is one loadConfig accepts, pointing at the compose services', (name) => {
    const env = envOf(serviceOf(compose, name));
    expect(envProblems(env)).toEqual([]);

    const db = new URL(env.DATABASE_URL ?? '');
    const pg = envOf(serviceOf(compose, 'postgres'));
    expect(db.hostname).toBe('postgres');
    expect(db.port || '5432').toBe('5432');
    expect(decodeURIComponent(db.username)).toBe(pg.POSTGRES_USER);
    expect(decodeURIComponent(db.password)).toBe(pg.POSTGRES_PASSWORD);
    expect(db.pathname).toBe(`/${pg.POSTGRES_DB}`);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(compose.services[hostOf(env.TEMPORAL_ADDRESS ?? '')]).toBeDefined();

    const config = loadConfig(env);
    expect(config.nodeEnv).toBe('production');
    expect(config.allowPrivateUrls).toBe(false);
    expect(config.http.publicBaseUrl).toBe(OPERATOR_ENV.PUBLIC_BASE_URL);
    expect(config.temporal.namespace).toBe(envOf(serviceOf(compose, 'temporal')).DEFAULT_NAMESPACE);
  });

  it('shares one environment between the service and the workers', () => {
    const shared = envOf({ environment: compose['x-app-env'] });
    expect(Object.keys(shared)).toEqual(expect.arrayContaining(['ADMIN_TOKEN', 'SECRETS_KEY', 'DATABASE_URL', 'TEMPORAL_ADDRESS']));
    for (const name of APP_SERVICES) expect(envOf(serviceOf(compose, name)), name).toMatchObject(shared);
  });

  it('serves HTTP on all interfaces, on the port it publishes, with /healthz as its health', () => {
    const service = serviceOf(compose, 'service');
    const config = loadConfig(envOf(service));
    expect(config.http.host).toBe('0.0.0.0');
    expect(service.ports).toContain(`${config.http.port}:${config.http.port}`);
    const probe = [service.healthcheck?.test ?? []].flat().join(' ');
    expect(probe).toContain(`:${config.http.port}/healthz`);
  });

  it('refuses to start without the operator’s secrets', () => {
    expect(() => loadCompose(COMPOSE_TEXT, {})).toThrow(/ADMIN_TOKEN/);
    expect(() => loadCompose(COMPOSE_TEXT, { ADMIN_TOKEN: 'x'.repeat(32) })).toThrow(/SECRETS_KEY/);
    // An .env line `SECRETS_KEY=` is no value either.
    for (const name of ['SECRETS_KEY', 'SANDBOX_API_KEY', 'SANDBOX_CALLBACK_SECRET']) {
      expect(() => loadCompose(COMPOSE_TEXT, { ...OPERATOR_ENV, [name]: '' }), name).toThrow(new RegExp(name));
    }
  });

  it('refuses, through the config, the sandbox’s published development values', () => {
    for (const [name, value] of [
      ['SANDBOX_API_KEY', 'sbx_sk_local_development'],
      ['SANDBOX_CALLBACK_SECRET', 'sbx_whsec_local_development'],
    ]) {
      const env = envOf(serviceOf(loadCompose(COMPOSE_TEXT, { ...OPERATOR_ENV, [name!]: value! }), 'service'));
      expect(() => loadConfig(env), name).toThrow(new RegExp(`${name}: is a published development value`));
    }
  });

  it('runs the sandbox provider on loopback only, enabled for the service that calls it over the compose network', () => {
    const sandbox = serviceOf(compose, 'sandbox');
    const sandboxConfig = loadConfig(envOf(sandbox));
    // Customers reach its payment page through the operator's proxy; its test helper pays payments.
    expect(sandbox.ports).toEqual([`127.0.0.1:${sandboxConfig.providers.sandbox.port}:${sandboxConfig.providers.sandbox.port}`]);
    // Nothing else but the Temporal UI (loopback) and the service itself is published.
    for (const [name, service] of Object.entries(compose.services)) {
      if (!['service', 'temporal-ui', 'sandbox'].includes(name)) expect(service.ports ?? [], name).toEqual([]);
    }
    const serviceConfig = loadConfig(envOf(serviceOf(compose, 'service')));
    expect(sandboxConfig.providers.sandbox.enabled).toBe(true);
    expect(serviceConfig.providers.sandbox).toMatchObject({ enabled: true, url: `http://sandbox:${sandboxConfig.providers.sandbox.port}` });
    expect(serviceConfig.providers.sandbox.apiKey).toBe(OPERATOR_ENV.SANDBOX_API_KEY);
    expect(serviceConfig.http.trustProxy).toEqual([]);
  });

  it('separates the URLs customers use from the ones the processes use on the compose network', () => {
    const service = loadConfig(envOf(serviceOf(compose, 'service')));
    const sandbox = loadConfig(envOf(serviceOf(compose, 'sandbox')));
    // Public: what the operator sets, for browsers and merchants.
    expect(service.http.publicBaseUrl).toBe(OPERATOR_ENV.PUBLIC_BASE_URL);
    expect(sandbox.providers.sandbox.publicUrl).toBe(OPERATOR_ENV.SANDBOX_PUBLIC_URL);
    // Internal: compose service names on the ports those services listen on.
    const internal = new URL(sandbox.http.serviceUrl);
    expect(compose.services[internal.hostname], 'SERVICE_URL names a compose service').toBeDefined();
    expect(Number(internal.port)).toBe(service.http.port);
    expect(internal.hostname).toBe('service');
    const sandboxApi = new URL(service.providers.sandbox.url);
    expect(sandboxApi.hostname).toBe('sandbox');
    expect(Number(sandboxApi.port)).toBe(sandbox.providers.sandbox.port);
    for (const url of [service.http.publicBaseUrl, sandbox.providers.sandbox.publicUrl]) {
      expect(compose.services[new URL(url).hostname], `${url} is not a compose-internal name`).toBeUndefined();
    }
    // Without the operator's SANDBOX_PUBLIC_URL, customers are sent to the loopback port it publishes.
    const { SANDBOX_PUBLIC_URL: _omitted, ...withoutSandboxUrl } = OPERATOR_ENV;
    expect(loadConfig(envOf(serviceOf(loadCompose(COMPOSE_TEXT, withoutSandboxUrl), 'service'))).providers.sandbox.publicUrl).toBe(
      `http://localhost:${sandbox.providers.sandbox.port}`,
    );
  });

  it('exposes metrics only on the compose network, /metrics behind the operator’s METRICS_TOKEN', () => {
    const worker = loadConfig(envOf(serviceOf(compose, 'worker')));
    expect(worker.metrics.workerPort).toBeGreaterThan(0);
    expect(worker.http.host).toBe('0.0.0.0');
    expect(serviceOf(compose, 'worker').ports ?? []).toEqual([]);
    expect(loadConfig(envOf(serviceOf(compose, 'service'))).metrics.token).toBeNull();
    const token = 'm'.repeat(32);
    expect(
      loadConfig(envOf(serviceOf(loadCompose(COMPOSE_TEXT, { ...OPERATOR_ENV, METRICS_TOKEN: token }), 'service'))).metrics.token,
    ).toBe(token);
  });

  it('pins every Temporal image to the server version `npm run temporal:server` builds', () => {
    const version = TEMPORAL_SERVER_VERSION.replace(/^v/, '');
    expect(serviceOf(compose, 'temporal').image).toBe(`temporalio/auto-setup:${version}`);
    expect(serviceOf(compose, 'temporal-setup').image).toMatch(new RegExp(`^temporalio/admin-tools:${version.replace(/\./g, '\\.')}-`));
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.image?.startsWith('temporalio/')) expect(service.image, `${name} is pinned`).not.toMatch(/:latest$|^[^:]+$/);
    }
  });

  it('would catch a misspelled or a missing variable', () => {
    const misspelled = COMPOSE_TEXT.replace(/^(\s+)SECRETS_KEY:/m, '$1SECRET_KEY:');
    expect(misspelled).not.toBe(COMPOSE_TEXT);
    expect(envProblems(envOf(serviceOf(loadCompose(misspelled), 'worker')))).toEqual([
      'SECRET_KEY is not a variable src/config.ts reads',
      'SECRETS_KEY is not set',
    ]);
    const withoutTemporal = COMPOSE_TEXT.replace(/^\s+TEMPORAL_ADDRESS: temporal:7233\n/m, '');
    expect(withoutTemporal).not.toBe(COMPOSE_TEXT);
    expect(envProblems(envOf(serviceOf(loadCompose(withoutTemporal), 'service')))).toEqual(['TEMPORAL_ADDRESS is not set']);
  });

  it('registers exactly the search attributes the workflows set, as Keywords, where the workers run', () => {
    const setup = serviceOf(compose, 'temporal-setup');
    expect(setup.image).toMatch(/^temporalio\/admin-tools:/);
    const script = commandOf(setup);
    const names = /for name in ([^;\n]+?)\s*;\s*do/.exec(script)?.[1]?.trim().split(/\s+/) ?? [];
    expect(names.sort()).toEqual(SEARCH_ATTRIBUTE_KEYS.map((k) => k.name).sort());
    expect(script).toMatch(/search-attribute create [^\n]*--name "?\$name"? --type Keyword/);

    const app = loadConfig(envOf(serviceOf(compose, 'worker')));
    const invocations = script.match(/temporal operator [^\n|]*/g) ?? [];
    expect(invocations.length).toBeGreaterThan(0);
    for (const call of invocations) {
      expect(call).toContain(`--address ${app.temporal.address}`);
      expect(call).toContain(`--namespace ${app.temporal.namespace}`);
    }
  });

  it('points the Temporal UI at the Temporal service', () => {
    const ui = serviceOf(compose, 'temporal-ui');
    const address = envOf(ui).TEMPORAL_ADDRESS ?? '';
    expect(ui.image).toMatch(/^temporalio\/ui:/);
    expect(address).toBe('temporal:7233');
    expect(compose.services[hostOf(address)]?.image).toMatch(/^temporalio\/auto-setup:/);
    expect(ui.ports?.some((p) => typeof p === 'string' && /(^|:)8233:8080$/.test(p))).toBe(true);
  });
});

describe('.env.example', () => {
  const lines = read('.env.example').split('\n');
  const entries = lines.map((l) => /^#?\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(l.trim())).filter((m): m is RegExpExecArray => m !== null);
  const listed = new Map(entries.map((m) => [m[1] ?? '', m[2] ?? '']));
  const active: Env = Object.fromEntries(entries.filter((m) => !m[0].startsWith('#')).map((m) => [m[1] ?? '', m[2] ?? '']));

  it('lists every variable docker-compose.yml takes from the operator', () => {
    const seen = new Set<string>();
    interpolateAll(parseYaml(COMPOSE_TEXT), OPERATOR_ENV, seen);
    expect(seen.size).toBeGreaterThan(0);
    expect([...seen].filter((name) => !listed.has(name))).toEqual([]);
  });

  it('holds no secret: copied unchanged, compose refuses to start until they are filled in', () => {
    expect(active.ADMIN_TOKEN).toBe('');
    expect(active.SECRETS_KEY).toBe('');
    expect(active.SANDBOX_API_KEY).toBe('');
    expect(active.SANDBOX_CALLBACK_SECRET).toBe('');
    expect(() => loadCompose(COMPOSE_TEXT, active)).toThrow(/ADMIN_TOKEN/);
  });
});

describe('Dockerfile', () => {
  // Instructions with their continuation lines joined, comments dropped.
  const instructions = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [keyword = '', ...rest] = l.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
  const all = (keyword: string) => instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  it('compiles in a build stage, then installs only the production dependencies and runs compiled JavaScript as a non-root user', () => {
    expect(all('FROM')).toEqual(['node:20-bookworm-slim AS build', 'node:20-bookworm-slim']);
    const runs = all('RUN');
    const build = runs.findIndex((r) => /\bnpm run build\b/.test(r));
    expect(build, 'npm run build in the build stage').toBeGreaterThanOrEqual(0);
    // The build transpiles without checking types: the stage checks them first.
    expect(runs[build], 'the build stage checks the types before it builds').toMatch(/\bnpm run typecheck && npm run build\b/);
    expect(
      runs.findIndex((r) => /^npm ci$/.test(r)),
      'the build stage installs the dev dependencies',
    ).toBeLessThan(build);
    expect(
      runs.some((r) => /\bnpm ci --omit=dev\b/.test(r)),
      'the runtime installs production dependencies only',
    ).toBe(true);
    expect(all('COPY')).toContain('--from=build /app/dist ./dist');
    // Production code needs no TypeScript runner: tsx and the test-only packages are dev dependencies.
    const pkg = JSON.parse(read('package.json')) as { dependencies?: Record<string, string> };
    for (const dev of ['tsx', '@temporalio/testing', '@temporalio/proto', 'smtp-server', 'mailparser', 'vite', 'react'])
      expect(Object.keys(pkg.dependencies ?? {})).not.toContain(dev);
    const user = all('USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(JSON.parse(all('CMD').at(-1) ?? 'null')).toEqual(['node', 'dist/server.js']);
  });

  it('bundles the compiled workflow code into the cache at build time, after the build is copied and before it drops root', () => {
    const at = (pred: (i: { keyword: string; args: string }) => boolean) => instructions.findIndex(pred);
    const bundle = at((i) => i.keyword === 'RUN' && /^node dist\/scripts\/bundle-workflows\.js$/.test(i.args));
    expect(bundle).toBeGreaterThan(at((i) => i.keyword === 'COPY' && /^--from=build /.test(i.args)));
    expect(bundle).toBeLessThan(at((i) => i.keyword === 'USER'));
  });

  it('keeps the operator’s .env, local state and node_modules out of the image', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.env', '.data', 'node_modules', '.git']) expect(ignored, entry).toContain(entry);
  });
});
