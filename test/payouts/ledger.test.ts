import { describe, expect, it } from 'vitest';
import {
  accountBalance,
  depositAddressBalances,
  ledgerBalances,
  readPosting,
  treasuryBalances,
  writePosting,
} from '../../src/db/queries/ledger';
import {
  balanced,
  exceptionAccepted,
  exceptionArrived,
  payoutConfirmed,
  payoutFee,
  postingLeft,
  UnbalancedPostingError,
  type Posting,
} from '../../src/domain/ledger';
import {
  balanceAccount,
  holdReleased,
  outgoingConfirmed,
  outgoingPlanned,
  paymentCompleted,
  sweepConfirmed,
} from '../../src/domain/balances';
import { useTestApp } from '../support/harness';

// Every posting balances, refused by the database otherwise (a deferred
// constraint trigger checked at commit), lines are append-only, and the balance queries that the
// reconciliation reads add up per account, asset and network.
const ctx = useTestApp();

const DEPOSIT = '0x1111111111111111111111111111111111111111';
const TREASURY = '0x2222222222222222222222222222222222222222';
const MERCHANT_WALLET = '0x3333333333333333333333333333333333333333';
const SWEEPER = '0x4444444444444444444444444444444444444444';

const unbalanced = (postingId: string): Posting => ({
  postingId,
  asset: 'USDC',
  network: 'polygon',
  paymentId: 'SV_unbalanced',
  txHash: null,
  lines: [
    { account: `deposit:${DEPOSIT}`, amount: 25_000_000n },
    { account: 'merchant:MER_x:pending', amount: -24_000_000n },
  ],
});

describe('the ledger', () => {
  it('refuses an unbalanced posting at commit, and writes none of its lines', async () => {
    const attempt = ctx.db.db.transaction(async (tx) => writePosting(tx, unbalanced('test:unbalanced')));
    await expect(attempt).rejects.toThrow(/does not balance: USDC on polygon sums to 1000000/);
    const [row] = await ctx.db.sql`select count(*)::int as n from ledger_entries where posting_id = 'test:unbalanced'`;
    expect(row!.n).toBe(0);
    // Balanced per asset is not enough across assets: each (asset, network) must sum to zero.
    const crossAsset = ctx.db.sql.begin(async (sql) => {
      await sql`insert into ledger_entries (posting_id, line, account, asset, network, amount) values
        ('test:cross', 1, 'a', 'USDC', 'polygon', 5), ('test:cross', 2, 'b', 'USDT', 'polygon', -5)`;
    });
    await expect(crossAsset).rejects.toThrow(/does not balance/);
    expect(() => balanced(unbalanced('test:domain'))).toThrow(UnbalancedPostingError);
  });

  it('keeps lines append-only', async () => {
    await ctx.db.db.transaction(async (tx) =>
      writePosting(tx, {
        ...unbalanced('test:fixed'),
        lines: [
          { account: 'a', amount: 7n },
          { account: 'b', amount: -7n },
        ],
      }),
    );
    await expect(ctx.db.sql`update ledger_entries set amount = 8 where posting_id = 'test:fixed'`).rejects.toThrow(/append-only/);
    await expect(ctx.db.sql`delete from ledger_entries where posting_id = 'test:fixed'`).rejects.toThrow(/append-only/);
  });

  it('posts a completion, its sweep and its payout once, with balances per account', async () => {
    const place = { asset: 'USDC', network: 'polygon' };
    const completion = {
      ...place,
      paymentId: 'SV_ledger1',
      merchantId: 'MER_ledger',
      depositAddress: DEPOSIT,
      txHash: '0xaa',
      grossMicro: 25_000_000n,
      merchantMicro: 24_625_000n,
      commissionMicro: 375_000n,
    };
    const draw = { fromAvailable: 24_625_000n, fromReserved: 0n };
    const payout = {
      id: 'po_m',
      paymentId: 'po_m',
      merchantId: 'MER_ledger',
      ...place,
      kind: 'merchant' as const,
      fromAddress: TREASURY,
      toAddress: MERCHANT_WALLET,
      amount: 24_625_000n,
      txHash: '0xm',
      feeWei: 50_000n,
    };
    const postings = [
      paymentCompleted(completion),
      holdReleased({ ...completion, amountMicro: 24_625_000n, reservedMicro: 0n, reserveTargetMicro: 0n }),
      sweepConfirmed({
        ...place,
        sweepId: 'po_sweep',
        treasury: TREASURY,
        txHash: '0xs',
        deposits: [{ address: DEPOSIT, amountMicro: 25_000_000n }],
      }),
      payoutFee({ ...payout, id: 'po_sweep', paymentId: 'po_sweep', kind: 'sweep', toAddress: TREASURY, txHash: '0xs', feeWei: 71_000n }),
      outgoingPlanned({ ...place, outgoingId: 'po_m', merchantId: 'MER_ledger', paymentId: null, ...draw }),
      outgoingConfirmed({
        ...place,
        outgoingId: 'po_m',
        merchantId: 'MER_ledger',
        paymentId: null,
        treasury: TREASURY,
        txHash: '0xm',
        amountMicro: 24_625_000n,
      }),
      payoutFee(payout),
    ];
    // Written twice (a retried activity): the second time changes nothing.
    for (let i = 0; i < 2; i++) await ctx.db.db.transaction(async (tx) => Promise.all(postings.map((p) => writePosting(tx, p))));

    const deposit = (await depositAddressBalances(ctx.db.db)).filter((b) => b.account === `deposit:${DEPOSIT}`);
    expect(deposit).toEqual([{ account: `deposit:${DEPOSIT}`, asset: 'USDC', network: 'polygon', balance: 0n }]);
    // The commission never moved on chain: it is the treasury's from the sweep on.
    const byAsset = (rows: { asset: string }[]) => [...rows].sort((a, b) => (a.asset < b.asset ? -1 : 1));
    expect(byAsset(await treasuryBalances(ctx.db.db))).toEqual([
      { account: `treasury:${TREASURY}`, asset: 'USDC', network: 'polygon', balance: 375_000n },
      { account: `treasury:${TREASURY}`, asset: 'native', network: 'polygon', balance: -121_000n },
    ]);
    for (const account of ['pending', 'available', 'reserved', 'outgoing'] as const)
      expect(await accountBalance(ctx.db.db, { account: balanceAccount[account]('MER_ledger'), ...place }), account).toBe(0n);
    expect(await accountBalance(ctx.db.db, { account: 'commission_revenue', ...place })).toBe(-375_000n);
    expect(await accountBalance(ctx.db.db, { account: 'gas_expense', asset: 'native', network: 'polygon' })).toBe(121_000n);
    // Every account together: the whole ledger sums to zero per asset and network.
    const totals = new Map<string, bigint>();
    for (const b of await ledgerBalances(ctx.db.db))
      totals.set(`${b.asset}/${b.network}`, (totals.get(`${b.asset}/${b.network}`) ?? 0n) + b.balance);
    expect([...totals.values()].every((t) => t === 0n)).toBe(true);
  });

  it('posts a refund as money held for the customer and paid back: the exception account and the deposit net to zero', async () => {
    const DEP = '0x00000000000000000000000000000000000000d2';
    const refund = payoutConfirmed(
      {
        id: 'po_r',
        paymentId: 'SV_ledger2',
        merchantId: 'MER_ledger',
        kind: 'refund',
        exceptionId: 'exc_r',
        asset: 'USDC',
        network: 'polygon',
        // The treasury calls the sweeper, whose forwarder at the deposit sends the money back.
        fromAddress: TREASURY,
        toAddress: SWEEPER,
        forwardedFrom: DEP,
        amount: 2_000_000n,
        txHash: '0xr',
        feeWei: 30_000n,
      },
      TREASURY,
    );
    expect(refund.map((p) => p.postingId)).toEqual(['payout:po_r', 'fee:po_r']);
    const arrival = exceptionArrived({
      postingId: 'arrival:polygon:0xa:0@0xb',
      exceptionId: 'exc_r',
      paymentId: 'SV_ledger2',
      depositAddress: DEP,
      asset: 'USDC',
      network: 'polygon',
      txHash: '0xa',
      amountMicro: 2_000_000n,
    });
    await ctx.db.db.transaction(async (tx) => Promise.all([arrival, ...refund].map((p) => writePosting(tx, p))));
    expect(await accountBalance(ctx.db.db, { account: 'exception:exc_r', asset: 'USDC', network: 'polygon' })).toBe(0n);
    expect(await accountBalance(ctx.db.db, { account: `deposit:${DEP}`, asset: 'USDC', network: 'polygon' })).toBe(0n);
    // The gas is the treasury's: nothing native ever moves at a deposit address.
    expect(await accountBalance(ctx.db.db, { account: `deposit:${DEP}`, asset: 'native', network: 'polygon' })).toBe(0n);
    expect(refund[1]!.lines).toEqual([
      { account: 'gas_expense', amount: 30_000n },
      { account: `treasury:${TREASURY}`, amount: -30_000n },
    ]);
    // A refund that names no exception has no account to pay from: refused before any write.
    expect(() =>
      payoutConfirmed(
        {
          id: 'po_x',
          paymentId: 'SV_x',
          merchantId: 'M',
          kind: 'refund',
          asset: 'USDC',
          network: 'polygon',
          fromAddress: DEP,
          toAddress: DEP,
          amount: 1n,
          txHash: '0x',
          feeWei: 0n,
        },
        TREASURY,
      ),
    ).toThrow(/names no exception/);
  });

  it('holds an exception’s money from its arrival: a refund pays it back, an acceptance hands it to the completion, a block that leaves undoes it', async () => {
    const balance = (account: string) => accountBalance(ctx.db.db, { account, asset: 'USDC', network: 'polygon' });
    const write = (postings: Posting[]) => ctx.db.db.transaction(async (tx) => Promise.all(postings.map((p) => writePosting(tx, p))));
    const DEP = '0x00000000000000000000000000000000000000d3';
    const arrival = {
      postingId: 'arrival:polygon:0xc:0@0xd',
      paymentId: 'SV_ledger3',
      depositAddress: DEP,
      asset: 'USDC',
      network: 'polygon',
      txHash: '0xa',
      amountMicro: 2_000_000n,
    };
    await write([exceptionArrived({ ...arrival, exceptionId: 'exc_refunded' })]);
    expect(await balance(`deposit:${DEP}`)).toBe(2_000_000n);
    expect(await balance('exception:exc_refunded')).toBe(-2_000_000n);
    await write(
      payoutConfirmed(
        {
          id: 'po_r3',
          paymentId: 'SV_ledger3',
          merchantId: 'MER_ledger',
          kind: 'refund',
          exceptionId: 'exc_refunded',
          asset: 'USDC',
          network: 'polygon',
          fromAddress: TREASURY,
          toAddress: SWEEPER,
          forwardedFrom: DEP,
          amount: 2_000_000n,
          txHash: '0xr3',
          feeWei: 0n,
        },
        TREASURY,
      ),
    );
    expect(await balance(`deposit:${DEP}`)).toBe(0n);
    expect(await balance('exception:exc_refunded')).toBe(0n);

    await write([
      exceptionArrived({ ...arrival, postingId: 'exception:exc_accepted', exceptionId: 'exc_accepted', amountMicro: 24_000_000n }),
    ]);
    await write([
      exceptionAccepted({
        exceptionId: 'exc_accepted',
        paymentId: 'SV_ledger3',
        depositAddress: DEP,
        asset: 'USDC',
        network: 'polygon',
        amountMicro: 24_000_000n,
      }),
      paymentCompleted({
        paymentId: 'SV_ledger3',
        merchantId: 'MER_ledger3',
        depositAddress: DEP,
        asset: 'USDC',
        network: 'polygon',
        txHash: '0xa',
        grossMicro: 24_000_000n,
        merchantMicro: 23_640_000n,
        commissionMicro: 360_000n,
      }),
    ]);
    expect(await balance('exception:exc_accepted')).toBe(0n);
    expect(await balance(`deposit:${DEP}`)).toBe(24_000_000n);
    expect(await balance(balanceAccount.pending('MER_ledger3'))).toBe(-23_640_000n);

    // A block that leaves the chain takes its arrival with it: the posting reversed, nothing held.
    const gone = exceptionArrived({ ...arrival, postingId: 'arrival:polygon:0xe:1@0xf', exceptionId: 'exc_gone', amountMicro: 7_000_000n });
    await write([gone]);
    const read = await readPosting(ctx.db.db, gone.postingId);
    expect(read).toEqual(gone);
    await write([postingLeft(read!)]);
    expect(await balance('exception:exc_gone')).toBe(0n);
    expect(await balance(`deposit:${DEP}`)).toBe(24_000_000n);
  });
});
