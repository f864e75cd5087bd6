import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Anvil's default chain id, which the dev chain keeps: wallets and tools recognise it as local. */
export const DEV_CHAIN_ID = 31337;

export interface DevChain {
  rpcUrl: string;
  chainId: number;
  stop: () => Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/**
 * Starts a local EVM chain (anvil), as tools/temporal/dev-server.ts starts Temporal: on `port`, or a
 * port anvil picks when absent (tests), in memory unless `stateFile` is given (`npm start`), where
 * anvil loads the state on start and writes it back periodically and on exit.
 */
export async function startDevChain(options: {
  binary: string;
  port?: number;
  stateFile?: string;
  /** Seconds between state dumps; anvil also dumps on a clean exit. */
  stateIntervalSeconds?: number;
}): Promise<DevChain> {
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0), '--chain-id', String(DEV_CHAIN_ID)];
  if (options.stateFile) args.push('--state', options.stateFile, '--state-interval', String(options.stateIntervalSeconds ?? 30));
  const child = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let rpcUrl: string;
  try {
    rpcUrl = await listeningUrl(child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    rpcUrl,
    chainId: DEV_CHAIN_ID,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGINT is anvil's clean shutdown, which writes the state file.
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Anvil prints `Listening on 127.0.0.1:<port>` once it serves RPC; with port 0 that is the only way to learn it. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const tail: string[] = [];
    const timer = setTimeout(() => fail(new Error(`anvil did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(new Error(`${err.message}\n${tail.join('\n')}`));
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        const match = /Listening on ([\d.]+):(\d+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(`http://${match[1]}:${match[2]}`);
        }
      });
    }
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`anvil exited before listening (${code ?? signal})`)));
  });
}
