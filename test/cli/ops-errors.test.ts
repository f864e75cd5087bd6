import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands';
import { synopsis } from '../../src/cli/command';
import { freePort } from '../support/free-port';
import { ADMIN_TOKEN, useTestApp } from '../support/harness';
import { expectOk, expectUsageError, ROOT, runOpsHere, type Env } from './run-ops';

// A spawned command is its own tsx process (a second or two, more on a loaded 2-core machine); the
// others run the same program in this process (runOpsHere), with an environment of their own.
vi.setConfig({ testTimeout: 120_000 });

// The ops CLI when things go wrong: refused requests (exit 1), bad command lines (exit 2, with
// commander's "did you mean"), and the help an operator finds on the way.

const ctx = useTestApp({}, { listen: true });
let dataDir = '';
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-errors-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ops = (args: string[], env: Env = {}) => runOpsHere(args, { SVC_URL: ctx.baseUrl, ADMIN_TOKEN, SVC_DATA_DIR: dataDir, ...env });

describe('ops CLI: the API refuses (exit 1)', () => {
  it('a wrong token: the error envelope on stderr', async () => {
    const run = await ops(['merchants', 'get', 'MER_0000000000000000'], { ADMIN_TOKEN: 'wrong-token-0123456789abcdef' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error 401 Unauthorized: The admin token is invalid or missing\. \(request req_[A-Za-z0-9]+\)\n$/);
  });

  it('a refused request prints the validation details', async () => {
    const run = await ops(['merchants', 'create', '--name', 'Bad Wallet', '--wallet', 'USDC:polygon:not-an-address']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error 422 ValidationError: .+ \(request req_\w+\)\n {2}wallets\.0\.address: Not a polygon address \(checksum included\)\.\n$/,
    );
  });

  it('an unknown merchant is a 404', async () => {
    const run = await ops(['merchants', 'get', 'MER_0000000000000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error 404 NotFound: Merchant not found\./);
  });

  it('no service at the URL: a message naming it and the setting', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await ops(['payments', 'status'], { SVC_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cannot reach the admin API at ${url} (ECONNREFUSED); is the service running there? Set --api-url or SVC_URL.`,
    );
  });

  it('reads the token from SVC_DATA_DIR/admin-token when neither flag nor env gives one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-token-'));
    try {
      const missing = await ops(['payments', 'status'], { ADMIN_TOKEN: undefined, SVC_DATA_DIR: dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        `no admin token: set ADMIN_TOKEN, pass --token-file, or run \`npm start\` once so that it writes ${path.join(dir, 'admin-token')}`,
      );

      writeFileSync(path.join(dir, 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
      expect(expectOk(await ops(['payments', 'status'], { ADMIN_TOKEN: undefined, SVC_DATA_DIR: dir })).stdout).toContain(
        'payments: enabled',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ops CLI: the admin token stays off the command line', () => {
  it('reads it from --token-file or ADMIN_TOKEN_FILE, and names a named file it cannot read', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-token-file-'));
    try {
      const file = path.join(dir, 'secret');
      writeFileSync(file, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
      const byFlag = expectOk(await ops(['payments', 'status', '--token-file', file], { ADMIN_TOKEN: undefined, SVC_DATA_DIR: dir }));
      expect(byFlag.stdout).toContain('payments: enabled');
      const byEnv = expectOk(await ops(['payments', 'status'], { ADMIN_TOKEN: undefined, ADMIN_TOKEN_FILE: file, SVC_DATA_DIR: dir }));
      expect(byEnv.stdout).toContain('payments: enabled');
      // A named file is what the operator meant: its absence is an error, not a fall-back.
      const missing = await ops(['payments', 'status', '--token-file', path.join(dir, 'nope')], { ADMIN_TOKEN: undefined });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(`ops: cannot read the admin token file ${path.join(dir, 'nope')} (ENOENT)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('`npm run ops` with ADMIN_TOKEN prints no token; --token is refused without repeating it', async () => {
    const npm = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn('npm', ['run', 'ops', '--', ...args], {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? os.tmpdir(),
            SVC_URL: ctx.baseUrl,
            ADMIN_TOKEN,
            SVC_DATA_DIR: dataDir,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const quiet = await npm(['payments', 'status']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toContain('> tsx src/cli/ops.ts payments status');
    expect(quiet.stdout).toContain('payments: enabled');
    expect(quiet.stdout + quiet.stderr).not.toContain(ADMIN_TOKEN);

    // There is no --token flag to put the token in npm's banner. One given anyway
    // (an old habit, or `--token=…`) is refused before any request, and the refusal never repeats it.
    for (const flag of [['--token', 'typed-token-0123456789abcdef'], ['--token=typed-token-0123456789abcdef']]) {
      const flagged = await npm(['payments', 'status', ...flag]);
      expect(flagged.code, flag.join(' ')).toBe(2);
      expect(flagged.stderr).toContain('error: there is no --token option: the admin token is read from ADMIN_TOKEN');
      expect(flagged.stderr.replace(/^npm (ERR!|error).*$/gm, '')).not.toContain('typed-token');
      expect(flagged.stdout).not.toContain('payments: ');
    }
  });
});

describe('ops CLI: bad command lines (exit 2)', () => {
  it.each([
    [['merchant', 'list'], /^error: unknown command 'merchant'\n\(Did you mean merchants\?\)/],
    [['merchants', 'craete', '--name', 'X'], /^error: unknown command 'craete'\n\(Did you mean create\?\)/],
    [['webhook', 'add'], /\(Did you mean webhooks\?\)/],
    [['keys', 'create', 'MER_1', '--scope', 'transactions:read'], /^error: unknown option '--scope'\n\(Did you mean --scopes\?\)/],
    [['payments', 'wait', 'SV_1', '--timout', '5'], /\(Did you mean --timeout\?\)/],
    [['merchants', 'frobnicate'], /^error: unknown command 'frobnicate'/],
    [['merchants', 'get'], /^error: missing required argument 'merchantId'/],
    [['webhooks', 'delete', 'MER_1'], /^error: missing required argument 'endpointId'/],
    [['merchants', 'get', 'MER_1', 'extra'], /^error: too many arguments for 'get'/],
    [['merchants', 'get', 'MER_1', '--bogus'], /^error: unknown option '--bogus'/],
    [['merchants', 'create'], /^error: required option '--name <name>' not specified/],
    [['webhooks', 'add', 'MER_1'], /^error: required option '--url <url>' not specified/],
    [['wallets', 'set', 'MER_1', '--asset', 'USDC', '--network', 'polygon'], /required option '--address <address>' not specified/],
    [
      ['merchants', 'create', '--name', 'X', '--commission-bps', '1.5'],
      /option '--commission-bps <bps>' argument '1\.5' is invalid\. must be a whole number/,
    ],
    [
      ['merchants', 'create', '--name', 'X', '--wallet', 'USDC-polygon'],
      /option '--wallet <asset:network:address>' argument 'USDC-polygon' is invalid\. must be ASSET:NETWORK:ADDRESS/,
    ],
    [['keys', 'create', 'MER_1', '--scopes', ' , '], /argument ' , ' is invalid\. needs at least one scope/],
    [['payments', 'wait', 'SV_1', '--timeout', '0'], /argument '0' is invalid\. must be at least 1/],
    [['payments', 'status', '--api-url', 'ftp://example.com'], /^ops: invalid settings: --api-url\/SVC_URL must be an http\(s\) URL/],
  ])('%j', async (args, message) => {
    expectUsageError(await ops(args), message);
  });

  it('the old global --url is refused with a pointer to --api-url', async () => {
    const run = expectUsageError(await ops(['payments', 'status', '--url', ctx.baseUrl]), /^error: unknown option '--url'/);
    expect(run.stderr).toContain('the service address is --api-url or SVC_URL');
  });

  it('no command at all prints the help on stderr', async () => {
    const run = expectUsageError(await ops([]), /^Usage: npm run ops -- \[options\] \[command\]/);
    expect(run.stderr).toContain('merchants create --name <name>');
  });
});

describe('ops CLI: help (exit 0)', () => {
  it('--help and help list every command with its options, and where the token file is', async () => {
    const runs = await Promise.all([ops(['--help']), ops(['help'])]);
    for (const run of runs) {
      expectOk(run);
      for (const c of COMMANDS) expect(run.stdout).toContain(`  ${synopsis(c)}\n`);
      expect(run.stdout).toContain(path.join(dataDir, 'admin-token'));
      expect(run.stdout).toContain('Exit status: 0 done; 1');
    }
    expect(runs[0].stdout).toContain('  merchants create --name <name> [--commission-bps <bps>] [--wallet <asset:network:address>]\n');
  });

  it('each command has its own --help: its usage, its options and the global ones', async () => {
    const run = expectOk(await ops(['webhooks', 'add', '--help']));
    expect(run.stdout).toMatch(/^Usage: npm run ops -- webhooks add <merchantId> --url <url>\n/);
    expect(run.stdout).toMatch(/Options:\n\s+--url <url>\s+where deliveries go/);
    expect(run.stdout).toMatch(/Global Options:\n\s+--api-url <url>/);
    const group = expectOk(await ops(['help', 'webhooks']));
    for (const verb of ['add', 'list', 'disable', 'enable', 'delete']) expect(group.stdout).toMatch(new RegExp(`\\n\\s+${verb} `));
  });

  it('the command table is well formed: unique names of two words (a group and a verb, or `reconcile` alone), options unique per command', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    // A one-word command must not share its word with a group (commander would shadow one of them).
    const groups = new Set(names.filter((n) => n.includes(' ')).map((n) => n.split(' ')[0]));
    for (const c of COMMANDS) {
      if (c.name.includes(' ')) expect(c.name.split(' ')).toHaveLength(2);
      else expect(groups.has(c.name), c.name).toBe(false);
      const flags = c.options.map((o) => o.flags.split(' ')[0]);
      expect(new Set(flags).size, c.name).toBe(flags.length);
      // Global options are parsed anywhere on the line, so no command may reuse their names.
      expect(
        flags.filter((f) => ['--api-url', '--token-file', '--json', '--help'].includes(f!)),
        c.name,
      ).toEqual([]);
    }
  });
});
