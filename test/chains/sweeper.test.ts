import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  parseEventLogs,
  type Address,
  type Hex,
  type LocalAccount,
  type TransactionReceipt,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementKeys } from '../../src/chains/derivation';
import { depositForwarderAbi } from '../../src/chains/deposit-forwarder-artifact';
import { depositSweeperAbi } from '../../src/chains/deposit-sweeper-artifact';
import {
  depositSalt,
  encodeForward,
  encodeSweep,
  encodeSweepNative,
  forwarderAddress,
  forwarderImplementation,
  sweeperAbi,
  sweptDepositsOf,
} from '../../src/chains/sweeper';
import { EVM_NETWORKS } from '../../src/domain/assets';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { devChain } from '../../tools/dev/dev-accounts';
import { testTokenNoReturnAbi } from '../../tools/dev/test-token-no-return-artifact';
import { testTokenReturnsFalseAbi, testTokenReturnsFalseBytecode } from '../fixtures/test-token-returns-false-artifact';
import { balanceOf, mint, newPayer, privateChain, randomAddress, type TestChain } from '../support/chain';

// Deposit addresses as CREATE2 forwarders swept by the network's sweeper, on a private anvil: the
// sweeper's owner is the dev treasury, which the run's shared chain uses for payouts with nonces of
// its own, and these sweeps must not take them.

// Gas of a first sweep per deposit (the forwarder's deployment, the token transfer, both events and
// the deposit's share of the 21k base) and of a later one, measured on anvil (deterministic): a
// sweep that grows past these is a regression to look at, not noise.
const FIRST_SWEEP_GAS_PER_DEPOSIT_OF_50 = 55_000n;
const LATER_SWEEP_GAS_PER_DEPOSIT_OF_50 = 20_000n;

let chain: TestChain & { stop(): Promise<void> };
let sweeper: Address;
let usdt: Address;
const treasury = settlementKeys(DEV_SETTLEMENT_MNEMONIC).treasury;

beforeAll(async () => {
  chain = await privateChain();
  sweeper = chain.sweepers.polygon;
  usdt = chain.tokens.polygon.USDT;
});
afterAll(() => chain?.stop());

// Salts are taken from one counter, so no two tests of the file share a deposit.
let nextIndex = 1n;
const freshSalts = (n: number): Hex[] => Array.from({ length: n }, () => depositSalt(nextIndex++));

function walletOf(account: LocalAccount) {
  return createWalletClient({ account, chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
}

/** Sends `data` to the sweeper as `account` (the treasury unless said) and waits for its receipt. */
async function send(data: Hex, options: { account?: LocalAccount; gas?: bigint } = {}): Promise<TransactionReceipt> {
  const hash = await walletOf(options.account ?? treasury).sendTransaction({ to: sweeper, data, gas: options.gas });
  return chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** The custom error a call to the sweeper reverts with, decoded: name and arguments. */
async function revertOf(data: Hex, from: Address = treasury.address): Promise<{ errorName: string; args: readonly unknown[] }> {
  try {
    await chain.publicClient.call({ account: from, to: sweeper, data });
  } catch (err) {
    const raw = (err as BaseError).walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null;
    if (!raw?.data) throw err;
    const reverted = new ContractFunctionRevertedError({ abi: sweeperAbi, data: raw.data, functionName: 'sweep' });
    return { errorName: reverted.data!.errorName, args: reverted.data!.args ?? [] };
  }
  throw new Error('the call did not revert');
}

/** Mints `amounts[i]` of `token` to the deposit of `salts[i]`, all at once. */
const fund = (token: Address, salts: Hex[], amounts: bigint[]) =>
  Promise.all(salts.map((salt, i) => mint(chain, token, forwarderAddress(sweeper, salt), amounts[i]!)));

const amountsFor = (salts: Hex[]) => salts.map((_, i) => 1_000_000n + BigInt(i) * 10_001n);
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

describe('deposit addresses', () => {
  it('are computed off-chain exactly as the sweeper computes them, for every network', async () => {
    for (const network of EVM_NETWORKS) {
      const own = chain.sweepers[network];
      const implementation = await chain.publicClient.readContract({
        address: own,
        abi: depositSweeperAbi,
        functionName: 'implementation',
      });
      expect(implementation).toBe(forwarderImplementation(own));
      for (const salt of [depositSalt(0n), depositSalt(1n), depositSalt(2n ** 31n - 1n), depositSalt(2n ** 200n)]) {
        const onChain = await chain.publicClient.readContract({
          address: own,
          abi: depositSweeperAbi,
          functionName: 'depositAddress',
          args: [salt],
        });
        expect(forwarderAddress(own, salt)).toBe(onChain);
      }
      expect(await chain.publicClient.readContract({ address: own, abi: depositSweeperAbi, functionName: 'owner' })).toBe(treasury.address);
    }
    // Each network's sweeper gives the same salt another address: deposits are never shared across networks.
    const addresses = EVM_NETWORKS.map((n) => forwarderAddress(chain.sweepers[n], depositSalt(7n)));
    expect(new Set(addresses).size).toBe(4);
    expect(depositSalt(5n)).toBe(`0x${'0'.repeat(63)}5`);
    expect(() => depositSalt(-1n)).toThrow(RangeError);
  });
});

describe('a sweep', () => {
  it('moves 50 USDT deposits to the treasury in one transaction, deploying each forwarder, with no native coin anywhere', async () => {
    const salts = freshSalts(50);
    const deposits = salts.map((salt) => forwarderAddress(sweeper, salt));
    const amounts = amountsFor(salts);
    await fund(usdt, salts, amounts);
    const before = await balanceOf(chain, usdt, treasury.address);
    for (const deposit of deposits) {
      expect(await chain.publicClient.getCode({ address: deposit })).toBeUndefined();
      expect(await chain.publicClient.getBalance({ address: deposit })).toBe(0n);
    }

    const receipt = await send(
      encodeSweep({ token: usdt, to: treasury.address, deposits: salts.map((salt, i) => ({ salt, amount: amounts[i]! })) }),
    );

    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, usdt, treasury.address)).toBe(before + sum(amounts));
    for (const deposit of deposits) {
      expect(await balanceOf(chain, usdt, deposit)).toBe(0n);
      expect(await chain.publicClient.getCode({ address: deposit })).toMatch(
        /^0x363d3d373d3d3d363d73[0-9a-f]{40}5af43d82803e903d91602b57fd5bf3$/,
      );
      expect(await chain.publicClient.getBalance({ address: deposit })).toBe(0n);
    }
    expect(sweptDepositsOf(receipt, sweeper)).toEqual(
      salts.map((salt, i) => ({ salt, deposit: deposits[i], token: usdt, amount: amounts[i] })),
    );
    // Logs of another contract are not the sweeper's events, whatever they look like.
    expect(sweptDepositsOf(receipt, usdt)).toEqual([]);
    expect(receipt.gasUsed / 50n).toBeLessThan(FIRST_SWEEP_GAS_PER_DEPOSIT_OF_50);
  });

  it('sweeps money that arrives later at deployed forwarders, for less gas', async () => {
    const salts = freshSalts(50);
    const deposits = salts.map((salt) => forwarderAddress(sweeper, salt));
    await fund(usdt, salts, amountsFor(salts));
    const sweepAll = (amounts: bigint[]) =>
      send(encodeSweep({ token: usdt, to: treasury.address, deposits: salts.map((salt, i) => ({ salt, amount: amounts[i]! })) }));
    expect((await sweepAll(amountsFor(salts))).status).toBe('success');

    const late = salts.map((_, i) => 3_000_000n + BigInt(i));
    await fund(usdt, salts, late);
    const before = await balanceOf(chain, usdt, treasury.address);
    const receipt = await sweepAll(late);

    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, usdt, treasury.address)).toBe(before + sum(late));
    for (const deposit of deposits) expect(await balanceOf(chain, usdt, deposit)).toBe(0n);
    expect(sweptDepositsOf(receipt, sweeper).map((s) => s.amount)).toEqual(late);
    expect(receipt.gasUsed / 50n).toBeLessThan(LATER_SWEEP_GAS_PER_DEPOSIT_OF_50);
  });

  it('reverts as a whole when one amount is more than its deposit holds, and moves nothing', async () => {
    const salts = freshSalts(3);
    const deposits = salts.map((salt) => forwarderAddress(sweeper, salt));
    const amounts = amountsFor(salts);
    await fund(usdt, salts, amounts);
    const asked = [amounts[0]!, amounts[1]! + 1n, amounts[2]!];
    const data = encodeSweep({ token: usdt, to: treasury.address, deposits: salts.map((salt, i) => ({ salt, amount: asked[i]! })) });

    expect(await revertOf(data)).toEqual({ errorName: 'TransferFailed', args: [usdt, deposits[1]] });
    // Mined anyway (a gas limit given, so no estimate refuses it first): the chain undoes all of it.
    const before = await balanceOf(chain, usdt, treasury.address);
    const receipt = await send(data, { gas: 1_000_000n });
    expect(receipt.status).toBe('reverted');
    expect(await balanceOf(chain, usdt, treasury.address)).toBe(before);
    for (const [i, deposit] of deposits.entries()) {
      expect(await balanceOf(chain, usdt, deposit)).toBe(amounts[i]);
      expect(await chain.publicClient.getCode({ address: deposit })).toBeUndefined();
    }
  });

  it('is refused to anyone but the treasury, and with salts and amounts of different lengths', async () => {
    const [salt] = freshSalts(1);
    await fund(usdt, [salt!], [5_000_000n]);
    const stranger = await newPayer(chain);
    const data = encodeSweep({ token: usdt, to: stranger.address, deposits: [{ salt: salt!, amount: 5_000_000n }] });
    expect(await revertOf(data, stranger.address)).toEqual({ errorName: 'NotOwner', args: [] });
    const receipt = await send(data, { account: stranger, gas: 500_000n });
    expect(receipt.status).toBe('reverted');
    expect(await balanceOf(chain, usdt, stranger.address)).toBe(0n);
    for (const functionName of ['forward', 'sweepNative'] as const) {
      const call =
        functionName === 'forward'
          ? encodeForward({ token: usdt, salt: salt!, to: stranger.address, amount: 1n })
          : encodeSweepNative({ salt: salt!, to: stranger.address });
      expect(await revertOf(call, stranger.address)).toEqual({ errorName: 'NotOwner', args: [] });
    }

    const mismatched = encodeFunctionData({ abi: depositSweeperAbi, functionName: 'sweep', args: [usdt, treasury.address, [salt!], []] });
    expect(await revertOf(mismatched)).toEqual({ errorName: 'LengthMismatch', args: [] });
  });

  it('lets only the sweeper move a deployed forwarder’s money', async () => {
    const [salt] = freshSalts(1);
    await fund(usdt, [salt!], [2_000_000n]);
    expect((await send(encodeSweep({ token: usdt, to: treasury.address, deposits: [{ salt: salt!, amount: 1_000_000n }] }))).status).toBe(
      'success',
    );
    const deposit = forwarderAddress(sweeper, salt!);
    const direct = encodeFunctionData({ abi: depositForwarderAbi, functionName: 'transfer', args: [usdt, treasury.address, 1_000_000n] });
    await expect(chain.publicClient.call({ account: treasury.address, to: deposit, data: direct })).rejects.toThrow(
      /NotFactory|0x32b2baa3|revert/i,
    );
    expect(await balanceOf(chain, usdt, deposit)).toBe(1_000_000n);
  });
});

describe('forwarding one deposit', () => {
  it('sends a deposit’s money straight to another address (a refund), deploying the forwarder', async () => {
    const [salt] = freshSalts(1);
    const deposit = forwarderAddress(sweeper, salt!);
    await fund(usdt, [salt!], [7_500_000n]);
    const customer = randomAddress();

    const receipt = await send(encodeForward({ token: usdt, salt: salt!, to: customer, amount: 7_000_000n }));

    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, usdt, customer)).toBe(7_000_000n);
    expect(await balanceOf(chain, usdt, deposit)).toBe(500_000n);
    const [forwarded] = parseEventLogs({ abi: depositSweeperAbi, eventName: 'Forwarded', logs: receipt.logs });
    expect(forwarded?.args).toEqual({ salt, deposit, token: usdt, to: customer, amount: 7_000_000n });
    // A refund is not a sweep to the treasury.
    expect(sweptDepositsOf(receipt, sweeper)).toEqual([]);
  });
});

describe('native coin sent to a deposit by mistake', () => {
  it('is moved out by the treasury, and a deployed forwarder refuses more', async () => {
    const [salt] = freshSalts(1);
    const deposit = forwarderAddress(sweeper, salt!);
    const sender = await newPayer(chain);
    const mistaken = parseEther('0.25');
    await chain.publicClient.waitForTransactionReceipt({ hash: await walletOf(sender).sendTransaction({ to: deposit, value: mistaken }) });
    const to = randomAddress();

    const receipt = await send(encodeSweepNative({ salt: salt!, to }));

    expect(receipt.status).toBe('success');
    expect(await chain.publicClient.getBalance({ address: to })).toBe(mistaken);
    expect(await chain.publicClient.getBalance({ address: deposit })).toBe(0n);
    const [swept] = parseEventLogs({ abi: depositSweeperAbi, eventName: 'SweptNative', logs: receipt.logs });
    expect(swept?.args).toEqual({ salt, deposit, to, amount: mistaken });
    await expect(chain.publicClient.call({ account: sender.address, to: deposit, value: 1n })).rejects.toThrow();
  });
});

describe('tokens that answer in other ways', () => {
  it('the USDT-like token really returns no data from transfer, and is swept all the same', async () => {
    const holder = randomAddress();
    await mint(chain, usdt, holder, 1_000_000n);
    const data = encodeFunctionData({ abi: testTokenNoReturnAbi, functionName: 'transfer', args: [randomAddress(), 1n] });
    const answer = await chain.publicClient.request({ method: 'eth_call', params: [{ from: holder, to: usdt, data }, 'latest'] });
    expect(answer).toBe('0x');
    // The USDC-like token answers true (a 32-byte 1), and is swept too.
    const usdc = chain.tokens.polygon.USDC;
    await mint(chain, usdc, holder, 1_000_000n);
    const usdcAnswer = await chain.publicClient.request({ method: 'eth_call', params: [{ from: holder, to: usdc, data }, 'latest'] });
    expect(usdcAnswer).toBe(`0x${'0'.repeat(63)}1`);
    const [salt] = freshSalts(1);
    await fund(usdc, [salt!], [4_000_000n]);
    const before = await balanceOf(chain, usdc, treasury.address);
    expect((await send(encodeSweep({ token: usdc, to: treasury.address, deposits: [{ salt: salt!, amount: 4_000_000n }] }))).status).toBe(
      'success',
    );
    expect(await balanceOf(chain, usdc, treasury.address)).toBe(before + 4_000_000n);
  });

  it('a token whose transfer returns false makes the sweep revert', async () => {
    const owner = await newPayer(chain);
    const deployed = await chain.publicClient.waitForTransactionReceipt({
      hash: await walletOf(owner).deployContract({
        abi: testTokenReturnsFalseAbi,
        bytecode: testTokenReturnsFalseBytecode,
        args: ['False USD', 'FALSE'],
      }),
    });
    const token = getAddress(deployed.contractAddress!);
    const [salt] = freshSalts(1);
    const deposit = forwarderAddress(sweeper, salt!);
    await chain.publicClient.waitForTransactionReceipt({
      hash: await walletOf(owner).writeContract({
        address: token,
        abi: testTokenReturnsFalseAbi,
        functionName: 'mint',
        args: [deposit, 1_000_000n],
      }),
    });

    const data = encodeSweep({ token, to: treasury.address, deposits: [{ salt: salt!, amount: 1_000_000n }] });
    expect(await revertOf(data)).toEqual({ errorName: 'TransferFailed', args: [token, deposit] });
  });

  it('an address without code is not a token: a call to it "succeeds" with no data, and is refused', async () => {
    const [salt] = freshSalts(1);
    const notAToken = randomAddress();
    const data = encodeSweep({ token: notAToken, to: treasury.address, deposits: [{ salt: salt!, amount: 0n }] });
    expect(await revertOf(data)).toEqual({ errorName: 'TransferFailed', args: [notAToken, forwarderAddress(sweeper, salt!)] });
  });
});

describe('gas', () => {
  it('of sweeps of 1, 10 and 50 deposits, first and later', async () => {
    const figures: string[] = [];
    for (const n of [1, 10, 50]) {
      const salts = freshSalts(n);
      const amounts = amountsFor(salts);
      const sweepAll = () =>
        send(encodeSweep({ token: usdt, to: treasury.address, deposits: salts.map((salt, i) => ({ salt, amount: amounts[i]! })) }));
      await fund(usdt, salts, amounts);
      const first = await sweepAll();
      await fund(usdt, salts, amounts);
      const later = await sweepAll();
      expect([first.status, later.status]).toEqual(['success', 'success']);
      figures.push(
        `${n} deposits: first ${first.gasUsed} (${first.gasUsed / BigInt(n)} each), later ${later.gasUsed} (${later.gasUsed / BigInt(n)} each)`,
      );
      if (n === 50) {
        expect(first.gasUsed / 50n).toBeLessThan(FIRST_SWEEP_GAS_PER_DEPOSIT_OF_50);
        expect(later.gasUsed / 50n).toBeLessThan(LATER_SWEEP_GAS_PER_DEPOSIT_OF_50);
      }
    }
    console.log(`sweep gas on anvil:\n  ${figures.join('\n  ')}`);
  });
});
