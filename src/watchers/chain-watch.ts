import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { firstBlockSince } from '../chains/block-at';
import { assertChainId, createChainClient, type ChainClient } from '../chains/clients';
import type { TokenTransfer } from '../chains/transfer-logs';
import { cursorFromJson, cursorToJson, TransferWatcher, type WatchCursor } from '../chains/watcher';
import type { ChainNetworkConfig } from '../config';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import { loadCursor, saveCursor } from '../db/queries/chain-cursors';
import {
  findDepositOwners,
  listOpenDepositAddresses,
  listDepositAddressesChangedSince,
  listRecentlyEndedDepositAddresses,
  oldestWatchedPaymentOpenedAt,
} from '../db/queries/watched-addresses';
import { holdAdvisoryLease, sleep } from '../db/advisory-lease';
import { recordClosedRunDeposit, type LateDepositSettings } from './late-deposits';
import { createReorgCheck, type ReorgWatchSettings } from './reorg-watch';
import type { DepositFact } from '../domain/deposit-fact';
import { depositSignal } from '../workflows/checkout-session/messages';
import { topUpMerchant } from '../domain/balances';
import { topUpFact } from './top-ups';

// One watcher per configured network, in the worker process. Each
// scan reads the Transfer logs to every open deposit address of the network in a few batched RPC calls
// (TransferWatcher), signals the owning workflow of each confirmed log (credit) and of each log whose
// block left the chain (uncredit), and only then stores the cursor in Postgres. A crash between the
// signals and the save sends them again after restart: the workflow and the chain_credits key make
// that harmless, and nothing is lost. One process at a time watches a network, whatever the number of
// workers: the one holding the network's advisory lease (db/advisory-lease.ts); the others stand by
// and take over when it stops, dies or loses its connection.

export interface ChainWatchDeps {
  db: Database;
  /** For the leases' own connections (one per network, held while watching or standing by). */
  databaseUrl: string;
  temporal: Client;
  networks: readonly ChainNetworkConfig[];
  pollIntervalMs?: number;
  /**
   * Between scans of a network with no address to watch (default 5 × pollIntervalMs): a payment
   * opened there is watched from the next scan, which reads every block since the last one, so the
   * longer wait only delays noticing a transfer sent within it.
   */
  idlePollIntervalMs?: number;
  /** How often a stand-by tries to take a network's lease, and how often the holder checks it (default 5 s each). */
  lease?: { retryMs?: number; heartbeatMs?: number };
  log?: (message: string) => void;
  /** Business events of the payouts a reorg sends again (reorg-watch.ts), as the worker's activities write theirs. */
  businessLog?: BusinessLog;
  /** Ended sessions' addresses stay watched this long; without it only open ones are. */
  lateDeposits?: LateDepositSettings;
  /** Credits and payouts re-checked after confirmation (reorg-watch.ts); without it they never are. */
  reorgs?: ReorgWatchSettings;
  /** After each scan: where the network's head and the watcher's confirmed cursor stand (watcher lag = head − confirmedThrough). */
  onScan?: (network: string, position: { head: bigint; confirmedThrough: bigint }) => void;
  onLease?: (network: string, event: 'acquired' | 'lost' | 'released') => void;
}

export interface ChainWatchers {
  stop(): Promise<void>;
}

export function startChainWatchers(deps: ChainWatchDeps): ChainWatchers {
  const controller = new AbortController();
  const log = deps.log ?? ((m: string) => console.error(m));
  const loops = deps.networks.map((n) =>
    holdAdvisoryLease(
      {
        databaseUrl: deps.databaseUrl,
        name: `svc:chain-watch:${n.network}`,
        signal: controller.signal,
        ...deps.lease,
        onChange: (event, detail) => {
          if (event !== 'acquired') log(`chain watcher ${n.network}: lease ${event}${detail ? ` (${detail})` : ''}`);
          deps.onLease?.(n.network, event);
        },
      },
      (held) => watchNetwork(deps, n, held),
    ),
  );
  return {
    async stop() {
      controller.abort();
      await Promise.allSettled(loops);
    },
  };
}

const toFact = (kind: DepositFact['kind'], t: TokenTransfer): DepositFact => ({
  kind,
  network: t.network,
  transactionHash: t.transactionHash.toLowerCase(),
  logIndex: t.logIndex,
  asset: t.asset,
  token: t.token,
  from: t.from,
  to: t.to,
  amountMicro: t.amount.toString(),
  blockNumber: t.blockNumber.toString(),
  blockHash: t.blockHash.toLowerCase(),
});

async function watchNetwork(deps: ChainWatchDeps, endpoint: ChainNetworkConfig, signal: AbortSignal): Promise<void> {
  const { db } = deps;
  const log = deps.log ?? ((m: string) => console.error(m));
  const interval = deps.pollIntervalMs ?? 1000;
  const idleInterval = deps.idlePollIntervalMs ?? 5 * interval;
  const client = createChainClient(endpoint);
  const watched = watchedAddresses(deps, endpoint.network);
  let watching = 0;
  const watcher = new TransferWatcher({
    client,
    addresses: async () => {
      const set = await watched.read();
      watching = set.size;
      return set;
    },
  });
  let savedAt = -Infinity;

  const reorgs = deps.reorgs && deps.reorgs.windowHours > 0 ? deps.reorgs : null;
  const checkReorgs = reorgs
    ? createReorgCheck({ db, temporal: deps.temporal, settings: reorgs, client, log, businessLog: deps.businessLog })
    : null;
  let lastReorgCheck = 0;

  let cursor: WatchCursor | null = null;
  while (!signal.aborted) {
    let caughtUp = true;
    try {
      if (!cursor) {
        await assertChainId(client);
        const stored = await loadCursor(db, endpoint.network);
        cursor = stored
          ? cursorFromJson(JSON.parse(stored))
          : await watcher.startCursor(await firstBlockToRead(deps, client, endpoint.network));
        // Saved at once: payments opened from now on are watched from here, even across a crash.
        if (!stored) await saveCursor(db, endpoint.network, JSON.stringify(cursorToJson(cursor)));
      }
      const result = await watcher.scan(cursor);
      // Removals first: the same log may come back in another block in this very scan.
      await signalAll(
        deps,
        [...result.removed.map((t) => toFact('removed', t)), ...result.confirmed.map((t) => toFact('credited', t))],
        log,
      );
      cursor = result.cursor;
      const position = { head: result.head, confirmedThrough: cursor.confirmedThrough };
      // A network with nothing to watch writes its cursor every CURSOR_IDLE_SAVE_MS, not every scan:
      // after a crash the next watcher reads those blocks again, and finds nothing in them it has
      // not credited. Watched addresses' customers see the head move (customer-status), so it is
      // written every scan then.
      if (watching > 0 || result.confirmed.length + result.removed.length > 0 || Date.now() - savedAt >= CURSOR_IDLE_SAVE_MS) {
        await saveCursor(db, endpoint.network, JSON.stringify(cursorToJson(cursor)), position);
        savedAt = Date.now();
      }
      deps.onScan?.(endpoint.network, position);
      caughtUp = result.caughtUp;
    } catch (err) {
      log(`chain watcher ${endpoint.network}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (checkReorgs && cursor && Date.now() - lastReorgCheck >= (reorgs?.intervalMs ?? 30_000)) {
      lastReorgCheck = Date.now();
      try {
        const { lowestChanged } = await checkReorgs();
        // Blocks at or below the cursor are never read again: after a reorg deeper than the
        // confirmations, the watcher reads again from the lowest height where a credited log's block
        // was replaced, so a transfer mined again (or for the first time) at those heights is seen.
        if (lowestChanged !== null && lowestChanged <= cursor.confirmedThrough) {
          cursor = { confirmedThrough: lowestChanged - 1n, pending: cursor.pending };
          await saveCursor(db, endpoint.network, JSON.stringify(cursorToJson(cursor)));
          caughtUp = false;
        }
      } catch (err) {
        log(`chain watcher ${endpoint.network}: reorg check: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (caughtUp) await sleep(watching > 0 ? interval : idleInterval, signal);
  }
}

/**
 * Where a network's first watcher starts reading (there is no cursor yet): at the head, unless
 * payments it must watch were opened before it ran (the API takes payments whether or not a worker
 * runs; a fresh worker's watcher starts after its own start-up). Then from the first block mined
 * after the oldest of them opened, less a margin for the chain's and Postgres's clocks: started at
 * the head, a transfer mined before would never be read, and the payment would wait for nothing.
 */
async function firstBlockToRead(deps: ChainWatchDeps, client: ChainClient, network: string): Promise<bigint | undefined> {
  const oldest = await oldestWatchedPaymentOpenedAt(deps.db, network, deps.lateDeposits?.watchHours ?? 0);
  return oldest ? firstBlockSince(client.publicClient, new Date(oldest.getTime() - FIRST_READ_CLOCK_MARGIN_MS)) : undefined;
}
const FIRST_READ_CLOCK_MARGIN_MS = 10 * 60_000;

/** How often a network with no address to watch writes its cursor: well inside the scan-age alert's 5 minutes. */
const CURSOR_IDLE_SAVE_MS = 30_000;

/** How often the watched set is read whole, which also drops the addresses no longer watched. */
const WATCHED_FULL_READ_MS = 60_000;
/**
 * Between full reads, rows changed after the previous read's start less this margin are read: more
 * than any transaction that gives a payment its address lasts (statement timeouts: the API's 5 s, the
 * worker's 30 s) and any skew between this process's clock and Postgres's.
 */
const WATCHED_OVERLAP_MS = 5 * 60_000;

/**
 * The addresses a network's watcher reads transfers to, kept between scans. Read whole at start and
 * every WATCHED_FULL_READ_MS (open sessions' addresses, those of sessions ended within the late-deposit
 * window, and every merchant's top-up address); in between, each scan adds the payments whose row
 * changed since the previous read (an index range on updated_at, whatever the number of open
 * payments) and the top-up addresses made since: the open ones, and with late deposits watched the
 * ended ones too, so a payment opened and ended between two reads is watched all the same. A payment
 * that ended stays watched until the next full read, which is harmless: its money is an exception
 * either way. A read that fails leaves the set as it was, and the next one reaches back to the last
 * that succeeded, so no payment that opened meanwhile is missed.
 */
function watchedAddresses(deps: ChainWatchDeps, network: string, now = () => Date.now()) {
  let set = new Set<string>();
  let lastFull = -Infinity;
  let lastRead = -Infinity;
  const add = (rows: readonly { address: string }[], into: Set<string>) => {
    for (const r of rows) into.add(r.address.toLowerCase());
    return into;
  };
  return {
    async read(): Promise<ReadonlySet<string>> {
      const started = now();
      if (started - lastFull >= WATCHED_FULL_READ_MS) {
        const open = await listOpenDepositAddresses(deps.db, network);
        const ended = deps.lateDeposits ? await listRecentlyEndedDepositAddresses(deps.db, network, deps.lateDeposits.watchHours) : [];
        set = add(ended, add(open, new Set()));
        lastFull = started;
      } else {
        const since = new Date(lastRead - WATCHED_OVERLAP_MS);
        add(await listDepositAddressesChangedSince(deps.db, network, since, { ended: !!deps.lateDeposits }), set);
      }
      lastRead = started;
      return set;
    },
  };
}

async function signalAll(deps: ChainWatchDeps, facts: DepositFact[], log: (m: string) => void): Promise<void> {
  const { db, temporal } = deps;
  if (facts.length === 0) return;
  // Checkout sessions and simple orders alike: the address's payment reference is its workflow's id;
  // a merchant's top-up address has no workflow, and the watcher books its money itself.
  const owners = new Map(
    (await findDepositOwners(db, [...new Set(facts.map((f) => f.to))])).map((o) => [o.address.toLowerCase(), o.paymentId]),
  );
  for (const fact of facts) {
    const paymentId = owners.get(fact.to.toLowerCase());
    const topUpOf = paymentId ? topUpMerchant(paymentId) : null;
    if (paymentId && topUpOf) {
      await topUpFact(db, paymentId, topUpOf, fact, deps.businessLog);
      continue;
    }
    if (!paymentId) {
      // Every watched address is a payment's: a transfer to one with no owner is a fault to see.
      log(`chain watcher: ${fact.network} log ${fact.transactionHash}:${fact.logIndex} to ${fact.to}: no payment owns this address`);
      continue;
    }
    try {
      await temporal.workflow.getHandle(paymentId).signal(depositSignal, fact);
    } catch (err) {
      // The payment's run has ended: money after the end belongs to the exceptions machinery.
      if (err instanceof WorkflowNotFoundError) {
        if (deps.lateDeposits) await recordClosedRunDeposit(db, temporal, deps.lateDeposits, paymentId, fact);
        else log(`chain watcher: ${fact.network} log ${fact.transactionHash}:${fact.logIndex} to ${paymentId}, whose workflow has closed`);
        continue;
      }
      throw err;
    }
  }
}
