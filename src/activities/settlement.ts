import { heartbeat } from '@temporalio/activity';
import type { Address } from 'viem';
import { tokenBalance } from '../chains/clients';
import { depositSalt, encodeSweep } from '../chains/sweeper';
import type { ChainSettings } from '../config';
import type { Database } from '../db/client';
import { writePostings } from '../db/queries/ledger';
import { findPayout } from '../db/queries/payouts';
import { accountBalance } from '../db/queries/merchant-balances';
import {
  heldShares,
  lockSettlement,
  payablePayments,
  settlementDueNetworks,
  sweepableDeposits,
  unfinishedSettlementPayouts,
  type PayablePayment,
} from '../db/queries/settlement';
import { insertSettlementPayout, listPayoutItems, payoutStandingOf } from '../db/queries/settlement-payouts';
import { lockMerchant } from '../db/queries/merchants';
import { balanceAccount, holdReleased, payoutDue, outgoingFailed, outgoingPlanned, reserveAdjusted } from '../domain/balances';
import { payoutRequested } from '../domain/next-payout';
import { newPayoutId } from '../domain/ids';
import { postgresCode } from '../domain/sql-errors';
import { payoutChains, payoutImpossible, type PayoutChains } from './payout-chains';
import { merchantOfPayout } from './settlement-confirmation';
import type { EmittedEvent } from './webhooks';

// Batched settlement (docs/settlement.md), the planning and booking around the payout steps: a run
// of a network sweeps the deposits of completed payments into the treasury (one sweeper call per
// asset and batch), then pays each merchant what those payments owe them (one transfer per merchant,
// asset and wallet). Sweeps and payouts are rows of `payouts`, sent by the same steps as every chain
// transaction (sign, broadcast, the receipt decides): exactly once, whatever crashes. A confirmed one
// is booked by settlement-confirmation.ts.

/** What the treasury moves as a contract call or transfer: the network's client, token and sweeper. */
function networkOf(chains: PayoutChains, settings: ChainSettings, network: string, asset: string) {
  const config = settings.networks.find((n) => n.network === network);
  const sweeper = config?.sweeper;
  if (!config || !sweeper) throw payoutImpossible(`${network} has no sweeper configured`);
  const token = config.tokens[asset as 'USDC' | 'USDT'];
  if (!token) throw payoutImpossible(`${asset} is not configured on ${network}`);
  return { sweeper, token, treasury: chains.treasury() };
}

/** Node 20 has no Map.groupBy. */
function groupBy<T>(list: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of list) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Payments whose payment.settled (and its first POSTs) one announcement makes at once. */
const ANNOUNCE_AT_ONCE = 10;

export function createSettlementActivities({
  db,
  chains: settings,
  announceSettled,
}: {
  db: Database;
  chains: ChainSettings;
  announceSettled: (paymentIds: string[]) => Promise<EmittedEvent[]>;
}) {
  const chains = payoutChains(settings);
  const batchSize = settings.settlement.sweepBatchSize;

  return {
    /**
     * The networks of `networks` where a run has something to do: a share whose hold has passed, a
     * sweep or payout a run left unfinished, a deposit to sweep, a payment to pay. Most runs find
     * nothing, and end after this one read (one statement) instead of three activities a network.
     */
    async settlementDue(networks: string[]): Promise<string[]> {
      return settlementDueNetworks(db, networks, settings.settlement.holdSeconds);
    },

    /**
     * Shares whose hold (PAYOUT_HOLD_SECONDS) has passed: pending → available, each under its
     * merchant's lock (a refund's draw reads the same balance). Returns how many were released.
     */
    async releaseHolds(network: string): Promise<number> {
      if (settings.settlement.holdSeconds === 0) return 0;
      return db.transaction(async (tx) => {
        await lockSettlement(tx, network);
        const held = await heldShares(tx, network, settings.settlement.holdSeconds);
        for (const share of held) {
          const merchant = await lockMerchant(tx, share.merchantId);
          const reserveTargetMicro = merchant?.reserveTargetMicro ?? 0n;
          // The reserve is filled first, up to the merchant's target (docs/settlement.md).
          const reservedMicro =
            reserveTargetMicro === 0n ? 0n : -(await accountBalance(tx, balanceAccount.reserved(share.merchantId), network, share.asset));
          await writePostings(tx, [holdReleased({ ...share, network, amountMicro: share.amountMicro, reservedMicro, reserveTargetMicro })]);
        }
        return held.length;
      });
    },

    /**
     * The network's sweeps to send: those a run left unfinished, else new ones, one per asset, each
     * of at most SWEEP_BATCH_SIZE deposits of completed payments (their gross: the commission stays in
     * the treasury). Written, items and all, under the network's settlement lock.
     */
    async planSweeps(network: string): Promise<string[]> {
      return db.transaction(async (tx) => {
        await lockSettlement(tx, network);
        const unfinished = (await unfinishedSettlementPayouts(tx, network)).filter((p) => p.kind === 'sweep');
        if (unfinished.length > 0) return unfinished.map((p) => p.id);
        const deposits = await sweepableDeposits(tx, network, batchSize);
        const byAsset = groupBy(deposits, (d) => d.asset);
        const ids: string[] = [];
        for (const [asset, listed] of byAsset) {
          const { sweeper, token, treasury } = networkOf(chains, settings, network, asset);
          // A deposit short of its amount on chain (a reorg took its transfer back) would revert the
          // whole sweep: it waits, and the others go.
          const client = chains.client(network);
          // A top-up address may have several logs in one sweep: what it holds must cover them all.
          const owed = new Map<string, bigint>();
          for (const d of listed) owed.set(d.depositAddress, (owed.get(d.depositAddress) ?? 0n) + d.amountMicro);
          const addresses = [...owed.keys()];
          const held = await Promise.all(addresses.map((a) => tokenBalance(client, token, a as Address)));
          const covered = new Set(addresses.filter((a, i) => held[i]! >= owed.get(a)!));
          const list = listed.filter((d) => covered.has(d.depositAddress));
          if (list.length === 0) continue;
          const id = newPayoutId();
          const total = list.reduce((sum, d) => sum + d.amountMicro, 0n);
          const callData = encodeSweep({
            token,
            to: treasury,
            deposits: list.map((d) => ({ salt: depositSalt(BigInt(d.depositIndex)), amount: d.amountMicro })),
          });
          await insertSettlementPayout(
            tx,
            {
              id,
              paymentId: id,
              kind: 'sweep',
              network,
              asset,
              token,
              fromAddress: treasury,
              toAddress: sweeper,
              amount: total.toString(),
              callData,
            },
            list.map((d) => ({
              paymentId: d.paymentId,
              depositAddress: d.depositAddress,
              depositIndex: d.depositIndex,
              amountMicro: d.amountMicro,
            })),
          );
          ids.push(id);
        }
        return ids;
      });
    },

    /**
     * The network's merchant payouts to send: those a run left unfinished, else one per merchant,
     * asset and wallet for the payments whose sweep is confirmed (the treasury holds their money),
     * drawn from the merchant's available balance in the same transaction: their shares, or less
     * when refunds have drawn on the balance meanwhile; a merchant with nothing available waits, and
     * so does one whose schedule is not due (daily, weekly, manual) or whose minimum is not reached,
     * unless they asked for a payout since their last one.
     */
    async planMerchantPayouts(network: string): Promise<string[]> {
      return db.transaction(async (tx) => {
        await lockSettlement(tx, network);
        const unfinished = (await unfinishedSettlementPayouts(tx, network)).filter((p) => p.kind === 'merchant');
        if (unfinished.length > 0) return unfinished.map((p) => p.id);
        const payable = await payablePayments(tx, network);
        const groups = groupBy(payable, (p: PayablePayment) => `${p.merchantId} ${p.asset} ${p.walletAddress}`);
        const ids: string[] = [];
        for (const list of groups.values()) {
          const { merchantId, asset, walletAddress } = list[0]!;
          const { token, treasury } = networkOf(chains, settings, network, asset);
          const swept = list.reduce((sum, p) => sum + p.shareMicro, 0n);
          // The merchant's lock, as a refund's draw takes it: the two never spend the same balance.
          const merchant = await lockMerchant(tx, merchantId);
          if (!merchant) continue;
          // Their schedule (a payout they asked for goes now), then their minimum; their accounts
          // read with it, once.
          const { lastPayoutAt: last, balance } = await payoutStandingOf(tx, { merchantId, network, asset });
          const requested = payoutRequested(merchant.payoutRequestedAt, last);
          if (!payoutDue({ schedule: merchant.payoutSchedule, lastPayoutAt: last, now: new Date(), requested })) continue;
          // The reserve first: brought to the merchant's target from what is available (or its
          // excess made available again, the target lowered); payouts never pay it.
          const { moveMicro: moved, posting: reserve } = reserveAdjusted({
            network,
            asset,
            adjustmentId: newPayoutId(),
            merchantId,
            availableMicro: balance.available,
            reservedMicro: balance.reserved,
            reserveTargetMicro: merchant.reserveTargetMicro,
          });
          if (reserve) await writePostings(tx, [reserve]);
          const available = balance.available - moved;
          // What the sweeps brought in (and a reserve's excess, in the treasury since its own sweep),
          // less what refunds have drawn meanwhile; nothing to pay, it waits.
          const due = swept + (moved < 0n ? -moved : 0n);
          const amount = available < due ? available : due;
          if (amount <= 0n || (!requested && amount < merchant.payoutMinimumMicro)) continue;
          const id = newPayoutId();
          await insertSettlementPayout(
            tx,
            {
              id,
              paymentId: id,
              kind: 'merchant',
              network,
              asset,
              token,
              fromAddress: treasury,
              toAddress: walletAddress,
              amount: amount.toString(),
            },
            list.map((p) => ({ paymentId: p.paymentId, amountMicro: p.shareMicro })),
          );
          await writePostings(tx, [
            outgoingPlanned({ network, asset, outgoingId: id, merchantId, paymentId: null, fromAvailable: amount, fromReserved: 0n }),
          ]);
          ids.push(id);
        }
        return ids;
      });
    },

    /** A merchant payout that failed for good: its amount is the merchant's available balance again, once. */
    async settlementPayoutFailed(payoutId: string): Promise<void> {
      const row = await findPayout(db, payoutId);
      if (!row || row.kind !== 'merchant' || row.status !== 'failed') return;
      const merchantId = await merchantOfPayout(db, payoutId);
      const amount = BigInt(row.amount);
      await writePostings(db, [
        outgoingFailed({
          network: row.network,
          asset: row.asset,
          outgoingId: row.id,
          merchantId,
          paymentId: null,
          fromAvailable: amount,
          fromReserved: 0n,
        }),
      ]).catch((err: unknown) => {
        // Written by an earlier attempt: the posting id is unique.
        if (postgresCode(err) !== '23505') throw err;
      });
    },

    /**
     * `payment.settled` for each payment a confirmed payout paid, with its deliveries' first attempts:
     * a few payments at a time (a batch's POSTs to one endpoint, each bounded by the webhook timeout,
     * are never a queue of them), alive meanwhile. A retry writes each event once.
     */
    async announcePayoutSettled(payoutId: string): Promise<EmittedEvent[]> {
      const row = await findPayout(db, payoutId);
      if (!row || row.kind !== 'merchant' || row.status !== 'confirmed') return [];
      const items = await listPayoutItems(db, payoutId);
      const emitted: EmittedEvent[] = [];
      const beating = setInterval(() => heartbeat(), 1_000);
      try {
        for (let i = 0; i < items.length; i += ANNOUNCE_AT_ONCE)
          emitted.push(...(await announceSettled(items.slice(i, i + ANNOUNCE_AT_ONCE).map((item) => item.paymentId))));
      } finally {
        clearInterval(beating);
      }
      return emitted;
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
