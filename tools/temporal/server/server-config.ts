import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, freePortIn } from '../../dev/free-port';
import type { ServerDatabases } from './schema';

export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/**
 * The ports of a single-host server: the frontend's gRPC port (7233 by default) and the next ones, as
 * Temporal numbers them. Membership ports must stay below 32768: the server stores them in a smallint.
 */
export function portsFrom(frontend: number): ServerPorts {
  return {
    frontend,
    history: frontend + 1,
    matching: frontend + 2,
    worker: frontend + 6,
    frontendHttp: frontend + 10,
    frontendMembership: frontend - 300,
    historyMembership: frontend - 299,
    matchingMembership: frontend - 298,
    workerMembership: frontend - 294,
  };
}

/**
 * Writes the server's config (and its dynamic config) under `dir`, for `temporal-server --root dir
 * --config config --env svc start`. A YAML of our own rather than the module's development template:
 * that one points at fixed ports and a relative dynamic-config path, and enables archival to /tmp.
 */
export function writeServerConfig(options: {
  dir: string;
  databases: ServerDatabases;
  ports: ServerPorts;
  numHistoryShards?: number;
  logLevel?: string;
  /**
   * Each of the four services in the process opens its own pools, so the server may hold 4 × (main +
   * visibility) connections. Tests share one Postgres (100 connections) with other files' stacks: they
   * ask for small pools.
   */
  connections?: { main: number; visibility: number };
}): string {
  const { dir, databases, ports } = options;
  const url = new URL(databases.postgresUrl);
  const connections = options.connections ?? { main: 20, visibility: 5 };
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${url.hostname}:${url.port || '5432'}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, extra: object = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  const configDir = path.join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  const dynamicConfig = path.join(configDir, 'dynamic.yaml');
  // Search attributes registered a moment ago are usable at once (the cache is otherwise refreshed
  // every 60 s), and updates (update-with-start) are on whatever the version's default.
  writeFileSync(
    dynamicConfig,
    stringify({
      'system.forceSearchAttributesCacheRefreshOnRead': [{ value: true }],
      'frontend.enableUpdateWorkflowExecution': [{ value: true }],
      'frontend.enableExecuteMultiOperation': [{ value: true }],
    }),
  );
  const config = {
    log: { stdout: true, level: options.logLevel ?? 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      // Fixed for the life of the database: more shards, more parallelism in history.
      numHistoryShards: options.numHistoryShards ?? 4,
      datastores: {
        default: datastore(databases.main, connections.main),
        visibility: datastore(databases.visibility, connections.visibility),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.historyMembership),
      matching: service(ports.matching, ports.matchingMembership),
      worker: service(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: dynamicConfig, pollInterval: '10s' },
  };
  writeFileSync(path.join(configDir, 'svc.yaml'), stringify(config), { mode: 0o600 });
  return configDir;
}

/**
 * Ports of a throwaway server (tests, the bench): each one free a moment ago, membership ports
 * below 32768 (smallint) and below Linux's ephemeral range, so a client's port cannot take them.
 */
export async function freeServerPorts(): Promise<ServerPorts> {
  const [frontend, frontendHttp, history, matching, worker] = await Promise.all(Array.from({ length: 5 }, () => freePort()));
  const [frontendMembership, historyMembership, matchingMembership, workerMembership] = await Promise.all(
    Array.from({ length: 4 }, () => freePortIn(20_000, 32_000)),
  );
  return {
    frontend: frontend!,
    frontendHttp: frontendHttp!,
    history: history!,
    matching: matching!,
    worker: worker!,
    frontendMembership: frontendMembership!,
    historyMembership: historyMembership!,
    matchingMembership: matchingMembership!,
    workerMembership: workerMembership!,
  };
}
