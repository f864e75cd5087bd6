import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  balanceAccount,
  holdReleased,
  merchantBalance,
  outgoingConfirmed,
  outgoingFailed,
  outgoingPlanned,
  paymentCompleted,
  payoutAmount,
  refundDraw,
  sweepConfirmed,
  topUpArrived,
  topUpReference,
  treasuryFunded,
  type Draw,
} from '../../src/domain/balances';
import { ledgerAccount, type Posting } from '../../src/domain/ledger';
import { commissionSplit } from '../../src/domain/money';

// The settlement rules (docs/settlement.md) composed over random histories of several merchants in one
// network and asset: payments completing, holds ending, sweeps of up to N deposits, payout runs whose
// transfers confirm or fail, refunds of completed payments, top-ups and an operator's funding. A model
// chain moves the tokens as each confirmed transaction would; the ledger takes the postings the rules
// build. After every step: the chain equals the ledger per address; no merchant balance is below zero;
// the platform's own money (commission and funding) never pays a merchant's refund or payout; no
// merchant receives more than they were credited; every payment is paid out at most once.

const place = { network: 'polygon', asset: 'USDC' };
const TREASURY = '0xtreasury';
const MERCHANTS = ['MER_a', 'MER_b', 'MER_c'] as const;
const SWEEP_BATCH = 4;

type Step =
  | { kind: 'pay'; merchant: number; grossMicro: bigint; bps: number }
  | { kind: 'release'; pick: number; reserveTargetMicro: bigint }
  | { kind: 'sweep' }
  | { kind: 'payout'; merchant: number; minimumMicro: bigint; confirms: boolean }
  /** `percent` of what the merchant holds (available + reserved), so refunds land on both sides of the bound. */
  | { kind: 'refund'; merchant: number; percent: number; confirms: boolean }
  | { kind: 'topUp'; merchant: number; amountMicro: bigint }
  | { kind: 'fund'; amountMicro: bigint };

const micro = (max: number) => fc.bigInt({ min: 1n, max: BigInt(max) });
const merchant = fc.integer({ min: 0, max: MERCHANTS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      merchant,
      grossMicro: micro(50_000_000),
      bps: fc.integer({ min: 0, max: 1000 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      pick: fc.nat(),
      reserveTargetMicro: fc.bigInt({ min: 0n, max: 5_000_000n }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sweep' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      merchant,
      minimumMicro: fc.bigInt({ min: 0n, max: 20_000_000n }),
      confirms: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      merchant,
      percent: fc.integer({ min: 1, max: 200 }),
      confirms: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('topUp' as const), merchant, amountMicro: micro(10_000_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fund' as const), amountMicro: micro(10_000_000) }) },
);

interface Payment {
  id: string;
  merchantId: string;
  depositAddress: string;
  shareMicro: bigint;
  released: boolean;
  /** The payout that pays it, once planned; cleared if that payout fails. */
  payoutId: string | null;
}

class World {
  readonly chain = new Map<string, bigint>();
  readonly ledger = new Map<string, bigint>();
  readonly payments: Payment[] = [];
  /** What each merchant was credited (shares and top-ups) and what reached them or their customers. */
  readonly credited = new Map<string, bigint>();
  readonly received = new Map<string, bigint>();
  /** Payments whose payout confirmed, with how many times. */
  readonly settled = new Map<string, number>();
  commissionMicro = 0n;
  fundingMicro = 0n;
  private seq = 0;

  post(posting: Posting) {
    expect(posting.lines.reduce((s, l) => s + l.amount, 0n)).toBe(0n);
    for (const l of posting.lines) this.ledger.set(l.account, (this.ledger.get(l.account) ?? 0n) + l.amount);
  }
  move(from: string | null, to: string, amount: bigint) {
    if (from !== null) {
      const had = this.chain.get(from) ?? 0n;
      // A real transfer of more than the sender holds reverts; the rules must never plan one.
      expect(had >= amount, `${from} holds ${had}, sends ${amount}`).toBe(true);
      this.chain.set(from, had - amount);
    }
    this.chain.set(to, (this.chain.get(to) ?? 0n) + amount);
  }
  balanceOf = (account: string) => this.ledger.get(account) ?? 0n;
  add(map: Map<string, bigint>, key: string, amount: bigint) {
    map.set(key, (map.get(key) ?? 0n) + amount);
  }
  id(prefix: string) {
    return `${prefix}_${++this.seq}`;
  }

  run(s: Step) {
    switch (s.kind) {
      case 'pay':
        return this.pay(MERCHANTS[s.merchant]!, s.grossMicro, s.bps);
      case 'release':
        return this.release(s.pick, s.reserveTargetMicro);
      case 'sweep':
        return this.sweep();
      case 'payout':
        return this.payout(MERCHANTS[s.merchant]!, s.minimumMicro, s.confirms);
      case 'refund':
        return this.refund(MERCHANTS[s.merchant]!, s.percent, s.confirms);
      case 'topUp':
        return this.topUp(MERCHANTS[s.merchant]!, s.amountMicro);
      case 'fund':
        return this.fund(s.amountMicro);
    }
  }

  private pay(merchantId: string, grossMicro: bigint, bps: number) {
    const id = this.id('SV');
    const depositAddress = `0xdeposit_${id}`;
    const { commission, merchant } = commissionSplit(grossMicro, bps);
    this.move(null, depositAddress, grossMicro);
    this.post(
      paymentCompleted({
        ...place,
        paymentId: id,
        merchantId,
        depositAddress,
        txHash: null,
        grossMicro,
        merchantMicro: merchant,
        commissionMicro: commission,
      }),
    );
    this.payments.push({ id, merchantId, depositAddress, shareMicro: merchant, released: false, payoutId: null });
    this.commissionMicro += commission;
    this.add(this.credited, merchantId, merchant);
  }

  private release(pick: number, reserveTargetMicro: bigint) {
    const held = this.payments.filter((p) => !p.released);
    const p = held[pick % Math.max(held.length, 1)];
    if (!p) return;
    const reservedMicro = merchantBalance(p.merchantId, this.balanceOf).reserved;
    this.post(
      holdReleased({ ...place, paymentId: p.id, merchantId: p.merchantId, amountMicro: p.shareMicro, reservedMicro, reserveTargetMicro }),
    );
    p.released = true;
  }

  private sweep() {
    const deposits = [...this.ledger.entries()]
      .filter(([account, balance]) => account.startsWith('deposit:') && balance > 0n)
      .slice(0, SWEEP_BATCH)
      .map(([account, balance]) => ({ address: account.slice('deposit:'.length), amountMicro: balance }));
    if (deposits.length === 0) return;
    for (const d of deposits) this.move(d.address, TREASURY, d.amountMicro);
    this.post(sweepConfirmed({ ...place, sweepId: this.id('sw'), treasury: TREASURY, txHash: '0xsweep', deposits }));
  }

  private treasuryMicro() {
    return this.balanceOf(ledgerAccount.treasury(TREASURY));
  }

  private payout(merchantId: string, minimumMicro: bigint, confirms: boolean) {
    const { available } = merchantBalance(merchantId, this.balanceOf);
    const decision = payoutAmount({ asset: place.asset, availableMicro: available, minimumMicro, treasuryMicro: this.treasuryMicro() });
    if (!decision.pay) return;
    const payoutId = this.id('po');
    const paid = this.payments.filter((p) => p.merchantId === merchantId && p.released && p.payoutId === null);
    for (const p of paid) p.payoutId = payoutId;
    this.outgoing(merchantId, payoutId, { fromAvailable: decision.amountMicro, fromReserved: 0n }, `0xwallet_${merchantId}`, confirms);
    if (confirms) for (const p of paid) this.settled.set(p.id, (this.settled.get(p.id) ?? 0) + 1);
    else for (const p of paid) p.payoutId = null;
  }

  private refund(merchantId: string, percent: number, confirms: boolean) {
    const b = merchantBalance(merchantId, this.balanceOf);
    const held = b.available + b.reserved;
    const requestedMicro = held > 0n ? (held * BigInt(percent)) / 100n + 1n : BigInt(percent);
    const draw = refundDraw({ asset: place.asset, availableMicro: b.available, reservedMicro: b.reserved, requestedMicro });
    if (!draw.ok) {
      expect(requestedMicro).toBeGreaterThan(b.available + b.reserved);
      return;
    }
    // The treasury sends it; a refund the treasury cannot cover yet waits for the sweep (never the
    // platform's own money in its place: the treasury only ever holds what the ledger says it does).
    if (this.treasuryMicro() < requestedMicro) return;
    this.outgoing(merchantId, this.id('rf'), draw, `0xcustomer_of_${merchantId}`, confirms);
  }

  private outgoing(merchantId: string, outgoingId: string, draw: Draw, to: string, confirms: boolean) {
    const amountMicro = draw.fromAvailable + draw.fromReserved;
    const base = { ...place, outgoingId, merchantId, paymentId: null };
    this.post(outgoingPlanned({ ...base, ...draw }));
    if (confirms) {
      this.move(TREASURY, to, amountMicro);
      this.post(outgoingConfirmed({ ...base, treasury: TREASURY, txHash: '0xpaid', amountMicro }));
      this.add(this.received, merchantId, amountMicro);
    } else {
      this.post(outgoingFailed({ ...base, ...draw }));
    }
  }

  private topUp(merchantId: string, amountMicro: bigint) {
    const topUpAddress = `0xtopup_${merchantId}`;
    this.move(null, topUpAddress, amountMicro);
    const postingId = `arrival:polygon:0xtop:${this.id('log')}#0`;
    const reference = topUpReference(merchantId, 'polygon');
    this.post(topUpArrived({ ...place, postingId, reference, merchantId, topUpAddress, txHash: '0xtop', amountMicro }));
    this.add(this.credited, merchantId, amountMicro);
  }

  private fund(amountMicro: bigint) {
    this.move(null, TREASURY, amountMicro);
    this.post(treasuryFunded({ ...place, fundingId: this.id('fund'), treasury: TREASURY, txHash: '0xfund', amount: amountMicro }));
    this.fundingMicro += amountMicro;
  }

  check() {
    // The chain equals the ledger at every address the platform holds money at.
    for (const [account, balance] of this.ledger) {
      if (account.startsWith('deposit:')) expect(this.chain.get(account.slice('deposit:'.length)) ?? 0n, account).toBe(balance);
    }
    expect(this.chain.get(TREASURY) ?? 0n).toBe(this.treasuryMicro());
    for (const m of MERCHANTS) {
      const b = merchantBalance(m, this.balanceOf);
      for (const [name, value] of Object.entries(b)) expect(value, `${m} ${name}`).toBeGreaterThanOrEqual(0n);
      // Nothing in flight once each step has ended; what a merchant got never exceeds what they were credited.
      expect(b.outgoing).toBe(0n);
      expect(this.received.get(m) ?? 0n).toBeLessThanOrEqual(this.credited.get(m) ?? 0n);
      expect((this.credited.get(m) ?? 0n) - (this.received.get(m) ?? 0n)).toBe(b.pending + b.available + b.reserved);
    }
    // The platform's own money is exactly what it earned and was given: never drawn for a merchant.
    expect(-this.balanceOf(ledgerAccount.commissionRevenue)).toBe(this.commissionMicro);
    expect(-this.balanceOf(balanceAccount.platformFunding)).toBe(this.fundingMicro);
    for (const count of this.settled.values()) expect(count).toBe(1);
  }
}

function runHistory(steps: Step[]) {
  const world = new World();
  for (const s of steps) {
    world.run(s);
    world.check();
  }
  return world;
}

describe('settlement rules over random histories', () => {
  it('keep the chain equal to the ledger, every balance at or above zero, and the platform out of merchants’ refunds', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        runHistory(steps);
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) },
    );
  });

  it('refuse a refund larger than the merchant holds even when the treasury holds the platform’s money', () => {
    const world = runHistory([
      { kind: 'fund', amountMicro: 100_000_000n },
      { kind: 'pay', merchant: 0, grossMicro: 10_000_000n, bps: 100 },
      { kind: 'release', pick: 0, reserveTargetMicro: 0n },
      { kind: 'sweep' },
      { kind: 'payout', merchant: 0, minimumMicro: 0n, confirms: true },
      // 9.90 paid out leaves nothing: any refund is more than the merchant holds.
      { kind: 'refund', merchant: 0, percent: 99, confirms: true },
    ]);
    // 10 paid, 9.90 paid out: the refund is refused, so 9.90 left the platform, not 19.70.
    expect(world.received.get('MER_a')).toBe(9_900_000n);
    expect(world.chain.get(TREASURY)).toBe(100_000_000n + 100_000n);
  });

  it('pay a payment out once when its first payout fails and the next confirms', () => {
    const world = runHistory([
      { kind: 'pay', merchant: 1, grossMicro: 5_000_000n, bps: 0 },
      { kind: 'release', pick: 0, reserveTargetMicro: 0n },
      { kind: 'sweep' },
      { kind: 'payout', merchant: 1, minimumMicro: 0n, confirms: false },
      { kind: 'payout', merchant: 1, minimumMicro: 0n, confirms: true },
      { kind: 'payout', merchant: 1, minimumMicro: 0n, confirms: true },
    ]);
    expect([...world.settled.values()]).toEqual([1]);
    expect(world.received.get('MER_b')).toBe(5_000_000n);
  });
});
