import { mkdirSync, readFileSync } from 'node:fs';
import { ensureTemporalBinary } from '../cli-binary';
import { ensureServerBinaries } from './binaries';
import { registerNamespace, serverLogFile, spawnServer, waitForServing, type RunningServer } from './run';
import { setupSchemas, type ServerDatabases } from './schema';
import { writeServerConfig, type ServerPorts } from './server-config';

export { freeServerPorts, portsFrom, type ServerPorts } from './server-config';
export type { ServerDatabases } from './schema';

export interface ProductionServerOptions {
  /** Where its config and log live (the script uses .data/temporal-server). */
  dir: string;
  databases: ServerDatabases;
  ports: ServerPorts;
  namespace: string;
  log?: (line: string) => void;
  connections?: { main: number; visibility: number };
}

/**
 * The production Temporal server on Postgres, on this host: binaries, schemas, config, process,
 * namespace and search attributes, each step skipped when already done. Resolves once the namespace
 * takes workflows; stop() ends the process.
 */
export async function startProductionServer(options: ProductionServerOptions): Promise<RunningServer & { logFile: string }> {
  const log = options.log ?? console.log;
  const cli = ensureTemporalBinary(log);
  const binaries = ensureServerBinaries(log);
  await setupSchemas({ sqlTool: binaries.sqlTool, moduleDir: binaries.moduleDir, databases: options.databases, log });
  mkdirSync(options.dir, { recursive: true });
  writeServerConfig({
    dir: options.dir,
    databases: options.databases,
    ports: options.ports,
    ...(options.connections ? { connections: options.connections } : {}),
  });
  const logFile = serverLogFile(options.dir);
  const server = spawnServer({ server: binaries.server, dir: options.dir, logFile });
  const address = `127.0.0.1:${options.ports.frontend}`;
  try {
    await Promise.race([
      waitForServing(cli, address),
      server.exited.then((status) => Promise.reject(new Error(`temporal-server exited (${status}):\n${lastLines(logFile, 15)}`))),
    ]);
    await registerNamespace({ cli, address, namespace: options.namespace });
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { ...server, address, logFile };
}

function lastLines(file: string, count: number): string {
  try {
    return readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-count)
      .map((l) => l.slice(0, 400))
      .join('\n');
  } catch {
    return `(no log at ${file})`;
  }
}
