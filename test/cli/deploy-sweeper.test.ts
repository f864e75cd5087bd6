import { createWalletClient, http, parseEther, toHex, type Address, type Hash } from 'viem';
import { english, generateMnemonic } from 'viem/accounts';
import { describe, expect, it, vi } from 'vitest';
import { settlementKeys } from '../../src/chains/derivation';
import { depositSalt, encodeSweep, forwarderAddress } from '../../src/chains/sweeper';
import { depositSweeperAbi } from '../../src/chains/deposit-sweeper-artifact';
import { loadConfig } from '../../src/config';
import { devChain } from '../../tools/dev/dev-accounts';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { balanceOf, mint, randomAddress, usePrivateChain, type TestChain } from '../support/chain';
import { expectOk, expectUsageError, spawnOps, type Run } from './run-ops';

// Each run is its own tsx process (a second or two each, more on a loaded 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

// `npm run ops -- deploy-sweeper`: the operator's deployment of a network's sweeper, run as an
// operator runs it, against a private anvil. Each case has a mnemonic of its own (not the published
// dev phrase, which the command refuses off the dev chain), so its treasury starts with nothing.

let chain: TestChain;
usePrivateChain({}, 1, (c) => (chain = c));

function operator() {
  const mnemonic = generateMnemonic(english);
  const treasury = settlementKeys(mnemonic).treasury;
  const env = { SETTLEMENT_MNEMONIC: mnemonic, CHAIN_POLYGON_RPC_URL: chain.rpcUrl, CHAIN_POLYGON_CHAIN_ID: String(DEV_CHAIN_ID) };
  const deploy = (extra: Record<string, string | undefined> = {}) =>
    spawnOps(['deploy-sweeper', '--network', 'polygon'], { ...env, ...extra }).then((run) => {
      // Neither the phrase nor the treasury's key ever reaches the terminal.
      const printed = run.stdout + run.stderr;
      expect(printed).not.toContain(mnemonic);
      expect(printed).not.toContain(mnemonic.split(' ').slice(0, 3).join(' '));
      expect(printed.toLowerCase()).not.toContain(toHex(treasury.getHdKey().privateKey!).slice(2));
      return run;
    });
  const nonce = () => chain.publicClient.getTransactionCount({ address: treasury.address });
  return { mnemonic, treasury, env, deploy, nonce };
}

const envLine = (run: Run): Address => {
  const lines = run.stdout.trimEnd().split('\n');
  const match = /^CHAIN_POLYGON_SWEEPER=(0x[0-9a-fA-F]{40})$/.exec(lines[lines.length - 1]!);
  return (match?.[1] as Address | undefined) ?? expect.fail(`no env line at the end of:\n${run.stdout}`);
};

describe('ops deploy-sweeper', () => {
  it('deploys the sweeper from the treasury, owned by it, and prints an env line the service accepts; run again with it, deploys nothing', async () => {
    const op = operator();
    await chain.control.setBalance({ address: op.treasury.address, value: parseEther('1') });

    const run = expectOk(await op.deploy());
    const sweeper = envLine(run);
    expect(run.stdout).toContain(`the treasury ${op.treasury.address} holds 1 POL on polygon (chain ${DEV_CHAIN_ID})`);
    expect(run.stdout).toContain(`the sweeper will be at ${sweeper}`);

    // Sent and paid for by the treasury itself: its transaction, and its gas.
    const hash = /^sent (0x[0-9a-f]{64});/m.exec(run.stdout)![1] as Hash;
    const sent = await chain.publicClient.getTransaction({ hash });
    expect(sent.from.toLowerCase()).toBe(op.treasury.address.toLowerCase());
    expect(await chain.publicClient.getBalance({ address: op.treasury.address })).toBeLessThan(parseEther('1'));
    expect(await chain.publicClient.readContract({ address: sweeper, abi: depositSweeperAbi, functionName: 'owner' })).toBe(
      op.treasury.address,
    );

    // Working as the service uses it: a deposit address computed off chain receives money, and the
    // treasury's sweep moves it on.
    const salt = depositSalt(7n);
    const token = chain.tokens.polygon.USDC;
    const deposit = forwarderAddress(sweeper, salt);
    await chain.publicClient.waitForTransactionReceipt({ hash: await mint(chain, token, deposit, 2_500_000n), pollingInterval: 50 });
    const payee = randomAddress();
    const wallet = createWalletClient({ account: op.treasury, chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const swept = await chain.publicClient.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({
        to: sweeper,
        data: encodeSweep({ token, to: payee, deposits: [{ salt, amount: 2_500_000n }] }),
      }),
      pollingInterval: 50,
    });
    expect(swept.status).toBe('success');
    expect(await balanceOf(chain, token, payee)).toBe(2_500_000n);

    // The printed line is what the service's config takes, and its refusal without one names this command.
    const service = { ADMIN_TOKEN: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32), ...op.env, CHAIN_POLYGON_USDC: token };
    expect(loadConfig({ ...service, CHAIN_POLYGON_SWEEPER: sweeper }).chains.networks[0]!.sweeper).toBe(sweeper);
    expect(() => loadConfig(service)).toThrow('`npm run ops -- deploy-sweeper --network polygon` deploys it');

    const nonce = await op.nonce();
    const again = expectOk(await op.deploy({ CHAIN_POLYGON_SWEEPER: sweeper }));
    expect(again.stdout).toContain(`${sweeper} is already the deposit sweeper on polygon (chain ${DEV_CHAIN_ID}), owned by the treasury`);
    expect(again.stdout).toContain('nothing deployed');
    expect(again.stdout).not.toContain('sent ');
    expect(envLine(again)).toBe(sweeper);
    expect(await op.nonce()).toBe(nonce);
  });

  it('refuses a treasury without native coin for gas, saying what it holds and roughly what is needed, and sends nothing', async () => {
    const op = operator();
    const run = await op.deploy();
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: the treasury ${op.treasury.address} holds 0 POL on polygon \\(chain ${DEV_CHAIN_ID}\\); deploying the sweeper needs up to about 0\\.\\d+ POL \\([\\d,]+ gas at up to [\\d.]+ gwei\\): send it native coin for gas, then run this again\n$`,
      ),
    );
    expect(await op.nonce()).toBe(0);
  });

  it('refuses a sweeper address that is not one the treasury owns, rather than deploying another beside it', async () => {
    const owner = operator();
    await chain.control.setBalance({ address: owner.treasury.address, value: parseEther('1') });
    const sweeper = envLine(expectOk(await owner.deploy()));

    const other = operator();
    await chain.control.setBalance({ address: other.treasury.address, value: parseEther('1') });
    const run = await other.deploy({ CHAIN_POLYGON_SWEEPER: sweeper });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: CHAIN_POLYGON_SWEEPER=${sweeper} is owned by ${owner.treasury.address}, not by the treasury ${other.treasury.address} of this SETTLEMENT_MNEMONIC`,
    );
    expect(await other.nonce()).toBe(0);
  });

  it('refuses without a mnemonic or the network’s RPC URL (settings: exit 2), and the published dev phrase off the dev chain', async () => {
    const op = operator();
    expectUsageError(
      await op.deploy({ SETTLEMENT_MNEMONIC: undefined }),
      /^ops: SETTLEMENT_MNEMONIC is required: its treasury owns the sweeper and pays for the deployment\n$/,
    );
    expectUsageError(
      await op.deploy({ CHAIN_POLYGON_RPC_URL: '' }),
      /^ops: CHAIN_POLYGON_RPC_URL is required: the polygon node the deployment is sent through\n$/,
    );
    expectUsageError(
      await op.deploy({
        SETTLEMENT_MNEMONIC: 'test test test test test test test test test test test junk',
        CHAIN_POLYGON_CHAIN_ID: undefined,
      }),
      /^ops: SETTLEMENT_MNEMONIC is the published development phrase/,
    );
    // The node answers another chain than the network's: nothing is signed for the wrong chain id.
    expectUsageError(
      await op.deploy({ CHAIN_POLYGON_CHAIN_ID: undefined }),
      /^ops: polygon: the RPC answers chain id 31337, configured 137 \(CHAIN_POLYGON_RPC_URL, or CHAIN_POLYGON_CHAIN_ID for another chain\)\n$/,
    );
    expectUsageError(await spawnOps(['deploy-sweeper'], {}), /^error: required option '--network <network>' not specified/);
  });
});
