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

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ ...base, NODE_ENV: 'development' });
    expect(c.nodeEnv).toBe('development');
    expect(c.http).toEqual({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://127.0.0.1:3000',
      serviceUrl: 'http://127.0.0.1:3000',
      bodyLimitBytes: 65536,
      trustProxy: [],
      apiKeyCacheMs: 5000,
      rateLimitPerSecond: 100,
      simpleOrdersPerMinute: 60,
      eventStreamMaxSeconds: 3600,
    });
    expect(c.metrics).toEqual({ token: null, workerPort: null });
    expect(c.logPretty).toBe(false);
    expect(c.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/svc');
    expect(c.temporal).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'checkout', payoutConcurrency: 4 });
    expect(c.providers.sandbox).toEqual({
      enabled: false,
      port: 3100,
      url: 'http://127.0.0.1:3100',
      publicUrl: 'http://127.0.0.1:3100',
      apiKey: 'sbx_sk_local_development',
      callbackSecret: 'sbx_whsec_local_development',
    });
    expect(c.checkout).toEqual({ sessionTtlSeconds: 86400, processingTimeoutSeconds: 86400, amountMinMajor: 1, amountMaxMajor: 1_000_000 });
    expect(c.allowPrivateUrls).toBe(false);
    expect(c.secretsKey).toHaveLength(32);
  });

  it('derives PUBLIC_BASE_URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ ...base, PORT: '4000' }).http.publicBaseUrl).toBe('http://127.0.0.1:4000');
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://pay.example.com/' }).http.publicBaseUrl).toBe('https://pay.example.com');
  });

  it('turns the key cache off with API_KEY_CACHE_SECONDS=0', () => {
    expect(loadConfig({ ...base, API_KEY_CACHE_SECONDS: '0' }).http.apiKeyCacheMs).toBe(0);
  });

  it('refuses request limits and stream lifetimes of zero, fractions or absurd sizes', () => {
    for (const [variable, value] of [
      ['API_RATE_LIMIT_PER_SECOND', '0'],
      ['API_RATE_LIMIT_PER_SECOND', '2.5'],
      ['API_RATE_LIMIT_PER_SECOND', '1000000'],
      ['SIMPLE_API_ORDERS_PER_MINUTE', '-1'],
      ['EVENT_STREAM_MAX_SECONDS', '0'],
      ['EVENT_STREAM_MAX_SECONDS', 'forever'],
    ] as const) {
      expect(() => loadConfig({ ...base, NODE_ENV: 'production', [variable]: value }), `${variable}=${value}`).toThrow(variable);
    }
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
    [{ API_KEY_CACHE_SECONDS: '61' }, 'API_KEY_CACHE_SECONDS'],
    [{ API_KEY_CACHE_SECONDS: '-1' }, 'API_KEY_CACHE_SECONDS'],
    [{ PAYOUT_CONCURRENCY: '0' }, 'PAYOUT_CONCURRENCY'],
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
    expect(configVariables).toEqual(
      expect.arrayContaining([
        'PORT',
        'HOST',
        'PUBLIC_BASE_URL',
        'DATABASE_URL',
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_TASK_QUEUE',
        'ADMIN_TOKEN',
        'SECRETS_KEY',
        'SANDBOX_PORT',
        'ALLOW_PRIVATE_URLS',
      ]),
    );
  });

  it('lists the chain variables of every EVM network', () => {
    expect(configVariables).toEqual(
      expect.arrayContaining(['SETTLEMENT_MNEMONIC', 'CHAIN_DEV_PORT', 'ALLOW_UNVERIFIED_NETWORKS', 'PROVIDER_PROOF_TIMEOUT_SECONDS']),
    );
    for (const n of ['ETHEREUM', 'POLYGON', 'BASE', 'ARBITRUM']) {
      for (const suffix of ['RPC_URL', 'CHAIN_ID', 'USDC', 'USDT', 'CONFIRMATIONS'])
        expect(configVariables).toContain(`CHAIN_${n}_${suffix}`);
    }
  });
});

describe('config: chains', () => {
  const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
  const USDT = '0xc2132D05D31c914a87C6611C10748AEb04B58e8F';
  const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  const withMnemonic = { ...base, SETTLEMENT_MNEMONIC: MNEMONIC };
  const SWEEPER = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

  it('has no chain verifier by default, and the documented defaults', () => {
    expect(loadConfig(base).chains).toEqual({
      networks: [],
      settlementMnemonic: null,
      devPort: 8545,
      allowUnverifiedNetworks: false,
      providerProofTimeoutSeconds: 3600,
      payoutRefusalWindowSeconds: 60,
      lateDepositWatchHours: 168,
      reorgWatchHours: 24,
      dustThresholdMicro: 10_000n,
      settlement: { intervalSeconds: 30, sweepBatchSize: 50, holdSeconds: 0 },
    });
  });

  it('reads the dust threshold in micro units, and refuses a negative or fractional one', () => {
    expect(loadConfig({ ...base, DUST_THRESHOLD_MICRO: '0' }).chains.dustThresholdMicro).toBe(0n);
    expect(loadConfig({ ...base, DUST_THRESHOLD_MICRO: '250000' }).chains.dustThresholdMicro).toBe(250_000n);
    expect(() => loadConfig({ ...base, DUST_THRESHOLD_MICRO: '-1' })).toThrow(/DUST_THRESHOLD_MICRO/);
    expect(() => loadConfig({ ...base, DUST_THRESHOLD_MICRO: '0.5' })).toThrow(/DUST_THRESHOLD_MICRO/);
  });

  it('configures a network from its RPC URL, with its mainnet chain id and confirmations by default', () => {
    const c = loadConfig({
      ...withMnemonic,
      CHAIN_POLYGON_RPC_URL: 'https://polygon.example.com',
      CHAIN_POLYGON_USDC: USDC,
      CHAIN_POLYGON_USDT: USDT,
      CHAIN_POLYGON_SWEEPER: SWEEPER,
    });
    expect(c.chains.networks).toEqual([
      {
        network: 'polygon',
        rpcUrl: 'https://polygon.example.com',
        chainId: 137,
        confirmations: 30,
        tokens: { USDC, USDT },
        sweeper: SWEEPER,
      },
    ]);
    expect(c.chains.settlementMnemonic).toBe(MNEMONIC);
  });

  it('takes a network only with its sweeper, and settlement runs with the interval and batch size in bounds', () => {
    const polygon = { ...withMnemonic, CHAIN_POLYGON_RPC_URL: 'https://polygon.example.com', CHAIN_POLYGON_USDC: USDC };
    expect(() => loadConfig(polygon)).toThrow(/CHAIN_POLYGON_SWEEPER/);
    const settled = loadConfig({ ...polygon, CHAIN_POLYGON_SWEEPER: USDT, PAYOUT_INTERVAL_SECONDS: '5' });
    expect(settled.chains.settlement).toEqual({ intervalSeconds: 5, sweepBatchSize: 50, holdSeconds: 0 });
    expect(() => loadConfig({ ...base, PAYOUT_HOLD_SECONDS: '-1' })).toThrow(/PAYOUT_HOLD_SECONDS/);
    expect(() => loadConfig({ ...base, PAYOUT_INTERVAL_SECONDS: '0' })).toThrow(/PAYOUT_INTERVAL_SECONDS/);
    expect(() => loadConfig({ ...base, SWEEP_BATCH_SIZE: '201' })).toThrow(/SWEEP_BATCH_SIZE/);
  });

  it.each([
    ['ETHEREUM', 1, 12],
    ['BASE', 8453, 10],
    ['ARBITRUM', 42161, 10],
  ])('defaults %s to chain id %i and %i confirmations', (n, chainId, confirmations) => {
    const c = loadConfig({
      ...withMnemonic,
      [`CHAIN_${n}_RPC_URL`]: 'https://rpc.example.com',
      [`CHAIN_${n}_USDC`]: USDC,
      [`CHAIN_${n}_SWEEPER`]: SWEEPER,
    });
    expect(c.chains.networks[0]).toMatchObject({ chainId, confirmations, tokens: { USDC, USDT: null } });
  });

  it('needs one confirmation on the dev chain (31337) unless told otherwise', () => {
    const dev = {
      ...withMnemonic,
      CHAIN_BASE_RPC_URL: 'http://127.0.0.1:8545',
      CHAIN_BASE_CHAIN_ID: '31337',
      CHAIN_BASE_USDC: USDC,
      CHAIN_BASE_SWEEPER: SWEEPER,
    };
    expect(loadConfig(dev).chains.networks[0]!.confirmations).toBe(1);
    expect(loadConfig({ ...dev, CHAIN_BASE_CONFIRMATIONS: '4' }).chains.networks[0]!.confirmations).toBe(4);
  });

  it.each([
    [{ CHAIN_POLYGON_RPC_URL: 'https://p.example.com', CHAIN_POLYGON_USDC: USDC.toLowerCase() }, 'CHAIN_POLYGON_USDC'],
    [
      { CHAIN_POLYGON_RPC_URL: 'https://p.example.com', CHAIN_POLYGON_USDC: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3358' },
      'CHAIN_POLYGON_USDC',
    ],
    [
      { CHAIN_POLYGON_RPC_URL: 'https://p.example.com', CHAIN_POLYGON_USDC: USDC, CHAIN_POLYGON_USDT: USDT.replace('c2', 'C2') },
      'CHAIN_POLYGON_USDT',
    ],
    [
      { CHAIN_POLYGON_RPC_URL: 'https://p.example.com', CHAIN_POLYGON_USDC: USDC, CHAIN_POLYGON_SWEEPER: USDT.toLowerCase() },
      'CHAIN_POLYGON_SWEEPER',
    ],
    [{ CHAIN_ETHEREUM_RPC_URL: 'ftp://e.example.com', CHAIN_ETHEREUM_USDC: USDC }, 'CHAIN_ETHEREUM_RPC_URL'],
    [{ CHAIN_ETHEREUM_RPC_URL: 'https://e.example.com' }, 'CHAIN_ETHEREUM_RPC_URL'],
    [{ CHAIN_BASE_RPC_URL: 'https://b.example.com', CHAIN_BASE_USDC: USDC, CHAIN_BASE_CHAIN_ID: 'eight' }, 'CHAIN_BASE_CHAIN_ID'],
    [{ CHAIN_BASE_RPC_URL: 'https://b.example.com', CHAIN_BASE_USDC: USDC, CHAIN_BASE_CONFIRMATIONS: '0' }, 'CHAIN_BASE_CONFIRMATIONS'],
    [{ SETTLEMENT_MNEMONIC: MNEMONIC.replace(/about$/, 'abandon') }, 'SETTLEMENT_MNEMONIC'],
    [{ ALLOW_UNVERIFIED_NETWORKS: 'yes' }, 'ALLOW_UNVERIFIED_NETWORKS'],
    [{ PROVIDER_PROOF_TIMEOUT_SECONDS: '0' }, 'PROVIDER_PROOF_TIMEOUT_SECONDS'],
  ])('stops on a bad chain value and names the variable: %o', (env, variable) => {
    const err = configError({ ...withMnemonic, ...env });
    expect(err.issues.map((i) => i.variable)).toContain(variable);
  });

  it('needs SETTLEMENT_MNEMONIC once a network is configured', () => {
    const err = configError({
      ...base,
      CHAIN_POLYGON_RPC_URL: 'https://p.example.com',
      CHAIN_POLYGON_USDC: USDC,
      CHAIN_POLYGON_SWEEPER: SWEEPER,
    });
    expect(err.issues).toEqual([{ variable: 'SETTLEMENT_MNEMONIC', message: expect.stringContaining('required') }]);
  });

  it('refuses the public development mnemonic in production only, without printing it', () => {
    const dev = 'test test test test test test test test test test test junk';
    const err = configError({ ...base, NODE_ENV: 'production', SETTLEMENT_MNEMONIC: dev });
    expect(err.issues.map((i) => i.variable)).toEqual(['SETTLEMENT_MNEMONIC']);
    expect(err.message).not.toContain('test test');
    expect(loadConfig({ ...base, NODE_ENV: 'development', SETTLEMENT_MNEMONIC: dev }).chains.settlementMnemonic).toBe(dev);
  });

  it('never echoes a bad mnemonic in its error', () => {
    const err = configError({ ...base, SETTLEMENT_MNEMONIC: 'correct horse battery staple' });
    expect(err.message).not.toContain('horse');
  });
});
