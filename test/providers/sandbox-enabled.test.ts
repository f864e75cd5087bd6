import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createProviders } from '../../src/providers';

// The sandbox provider, whose test helper pays any payment, exists only with
// SANDBOX_ENABLED=true: as an adapter of the service and as a process.

const ROOT = path.resolve(__dirname, '../..');
const base = { NODE_ENV: 'development', ADMIN_TOKEN: 'dev-admin-token-0123456789abcdef', SECRETS_KEY: 'ab'.repeat(32) };

function runSandbox(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'sandbox.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('SANDBOX_ENABLED', () => {
  it('registers the sandbox adapter only when true', () => {
    expect(createProviders(loadConfig(base)).get('sandbox')).toBeUndefined();
    expect(createProviders(loadConfig(base)).route('US', 'USD')).toBeUndefined();
    expect(createProviders(loadConfig({ ...base, SANDBOX_ENABLED: 'true' })).get('sandbox')).toBeDefined();
  });

  it('keeps sandbox.ts from starting without it', async () => {
    const { code, output } = await runSandbox({ ...base, SANDBOX_PORT: '1' });
    expect(code).toBe(1);
    expect(output).toContain('SANDBOX_ENABLED=true');
  });

  it('keeps sandbox.ts from starting in production on its published development secrets', async () => {
    const { code, output } = await runSandbox({
      ...base,
      NODE_ENV: 'production',
      SANDBOX_ENABLED: 'true',
      SANDBOX_API_KEY: 'sbx_sk_local_development',
      SANDBOX_PORT: '1',
    });
    expect(code).toBe(1);
    expect(output).toMatch(/SANDBOX_API_KEY: is a published development value/);
    expect(output).toMatch(/SANDBOX_CALLBACK_SECRET: is required/);
  });
});
