import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ConfigError, configVariables, loadConfig } from '../../src/config';

// docker-compose.yml read as compose would (YAML with merge keys, then variable interpolation), for
// test/compose.test.ts: no Docker engine runs here.

export const ROOT = path.resolve(__dirname, '../..');
export const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

export type Env = Record<string, string>;
type DependsOn = string[] | Record<string, { condition?: string }>;
export interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, unknown> | string[];
  depends_on?: DependsOn;
  healthcheck?: { test?: string | string[] };
  ports?: (string | { target?: number; published?: number | string })[];
  volumes?: (string | { source?: string; target?: string })[];
  deploy?: { replicas?: number };
}
export interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  'x-app-env'?: Record<string, unknown>;
}

/** What the operator's .env would hold: plausible values for the variables compose requires. */
export const OPERATOR_ENV: Env = {
  ADMIN_TOKEN: 'x'.repeat(32),
  SECRETS_KEY: 'ab'.repeat(32),
  PUBLIC_BASE_URL: 'https://pay.example.com',
  SANDBOX_PUBLIC_URL: 'https://sandbox.pay.example.com',
  POSTGRES_PASSWORD: 'pg-secret',
  SANDBOX_API_KEY: 'sbx-operator-key-0123456789',
  SANDBOX_CALLBACK_SECRET: 'sbx-operator-callback-secret-0123456789',
};

// Everything a compose file can write after `$`: `$$`, `$NAME`, `${...}`; a lone `$` is an error.
const REFERENCE = /\$(?:(\$)|\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))?/g;

/**
 * Compose's interpolation of one string: `$$`, `$NAME`, `${NAME}`, `${NAME-default}`,
 * `${NAME:-default}`, `${NAME?message}`, `${NAME:?message}`, `${NAME+alt}`, `${NAME:+alt}`.
 * With the colon an empty value counts as unset. Anything else throws, as compose refuses it.
 */
export function interpolate(value: string, env: Env, seen?: Set<string>): string {
  return value.replace(REFERENCE, (whole, escaped?: string, braced?: string, bare?: string) => {
    if (escaped) return '$';
    if (bare !== undefined) {
      seen?.add(bare);
      return env[bare] ?? '';
    }
    const m = braced === undefined ? null : /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^$]*))?$/.exec(braced);
    if (!m) throw new Error(`invalid interpolation ${whole} in ${JSON.stringify(value)}`);
    const [, name = '', colon, op, arg = ''] = m;
    seen?.add(name);
    const current = env[name];
    const unset = current === undefined || (colon === ':' && current === '');
    if (op === '-') return unset ? arg : (current ?? '');
    if (op === '+') return unset ? '' : arg;
    if (op === '?' && unset) throw new Error(`compose would refuse to start: ${name}: ${arg}`);
    return current ?? '';
  });
}

export function interpolateAll(node: unknown, env: Env, seen?: Set<string>): unknown {
  if (typeof node === 'string') return interpolate(node, env, seen);
  if (Array.isArray(node)) return node.map((n) => interpolateAll(n, env, seen));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateAll(v, env, seen)]));
  }
  return node;
}

export const COMPOSE_TEXT = read('docker-compose.yml');
export const parseYaml = (text: string) => parse(text, { merge: true }) as unknown;

export function loadCompose(text = COMPOSE_TEXT, env: Env = OPERATOR_ENV): ComposeFile {
  return interpolateAll(parseYaml(text), env) as ComposeFile;
}

export function serviceOf(compose: ComposeFile, name: string): Service {
  const service = compose.services[name];
  if (!service) throw new Error(`docker-compose.yml has no service "${name}"`);
  return service;
}

/** A service's environment as the process sees it, from either the map or the list form. */
export function envOf(service: Service): Env {
  const raw = service.environment ?? {};
  if (Array.isArray(raw)) {
    return Object.fromEntries(
      raw.map((entry) => {
        const i = entry.indexOf('=');
        return i < 0 ? [entry, ''] : [entry.slice(0, i), entry.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, scalar(k, v)]));
}

/** Compose takes strings, numbers and booleans as values and null as "empty"; nothing else. */
function scalar(name: string, v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`${name}: not a scalar value`);
}

export function dependencies(service: Service): Record<string, string> {
  const d = service.depends_on ?? [];
  if (Array.isArray(d)) return Object.fromEntries(d.map((name) => [name, 'service_started']));
  return Object.fromEntries(Object.entries(d).map(([name, v]) => [name, v.condition ?? 'service_started']));
}

export const commandOf = (service: Service) => [service.entrypoint ?? [], service.command ?? []].flat().join(' ');

/** The variables loadConfig cannot do without: it names them "is required" when they are absent. */
export function requiredByConfig(): string[] {
  try {
    loadConfig({});
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.filter((i) => i.message === 'is required').map((i) => i.variable);
  }
}

/** Every reason an app process's environment would not do; empty when it is right. */
export function envProblems(env: Env): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(env)) {
    if (!configVariables.includes(name)) problems.push(`${name} is not a variable src/config.ts reads`);
  }
  for (const name of [...requiredByConfig(), 'DATABASE_URL', 'TEMPORAL_ADDRESS']) {
    if (!env[name]) problems.push(`${name} is not set`);
  }
  return problems;
}
