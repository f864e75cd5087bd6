import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcTrap {
  method: string;
  /** Further narrows the match on the call's params (as JSON text, lowercase). */
  matches?: (params: string) => boolean;
  /** before: the call is never forwarded; after: forwarded, its answer never returned. */
  when: 'before' | 'after';
  /** Runs when the trap springs (kill the caller), before the connection is dropped. */
  spring: () => Promise<void>;
}

/**
 * A JSON-RPC proxy in front of a node that springs a trap on one chosen call: the way a test kills
 * a worker process at an exact step of a payout without hooks in production code. One trap at a
 * time, sprung once; every other call (batched or not) is forwarded unchanged, unless the proxy is
 * set down (an outage: every call dropped until it is up again) or withholds receipts (every
 * transaction answered as not mined yet, until told otherwise).
 */
export async function startRpcTrapProxy(target: string) {
  let trap: RpcTrap | null = null;
  // An outage: while down, every call is dropped unanswered (the node unreachable for a while).
  let down = false;
  // When each call dropped by an outage arrived: what the caller went through while the node was away.
  const dropped: number[] = [];
  // A chain slow to confirm: every receipt asked is answered as not mined yet (the node's null).
  let withholdReceipts = false;
  // Until the trap's spring has run (the caller is dead), it still counts as armed.
  let springing = false;
  const sprung: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        if (down) {
          dropped.push(Date.now());
          return res.destroy();
        }
        const calls = parseCalls(body);
        const armed = trap && calls.some((c) => c.method === trap!.method && (trap!.matches?.(c.params) ?? true)) ? trap : null;
        if (armed) {
          trap = null;
          springing = true;
        }
        if (armed?.when === 'before') {
          await armed.spring();
          sprung.push(`${armed.method}:before`);
          springing = false;
          return res.destroy();
        }
        try {
          const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          const text = await upstream.text();
          if (armed) {
            await armed.spring();
            sprung.push(`${armed.method}:after`);
            springing = false;
            return res.destroy();
          }
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(withholdReceipts ? withoutReceipts(calls, text) : text);
        } catch {
          res.destroy();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm: (t: RpcTrap) => void (trap = t),
    /** Drops every call from now until `setDown(false)` (an RPC outage). */
    setDown: (value: boolean) => void (down = value),
    /** While on, every transaction receipt is answered as not there yet (a chain slow to confirm). */
    withholdReceipts: (value: boolean) => void (withholdReceipts = value),
    armed: () => trap !== null || springing,
    sprung: () => [...sprung],
    /** The arrival times of the calls dropped while down. */
    dropped: () => [...dropped],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The node's answer with every `eth_getTransactionReceipt` result in it made null, batched or not. */
function withoutReceipts(calls: Call[], answer: string): string {
  const receiptIds = new Set(calls.filter((c) => c.method === 'eth_getTransactionReceipt').map((c) => c.id));
  if (receiptIds.size === 0) return answer;
  type Answer = { id?: unknown; result?: unknown };
  const parsed = JSON.parse(answer) as Answer | Answer[];
  const emptied = (a: Answer) => (receiptIds.has(a.id) && 'result' in a ? { ...a, result: null } : a);
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(emptied) : emptied(parsed));
}

/** A request's calls: each one's id, its method, and its params as lowercase JSON text. */
type Call = { id: unknown; method: string; params: string };

function parseCalls(body: string): Call[] {
  try {
    type Sent = { id?: unknown; method?: string; params?: unknown };
    const parsed = JSON.parse(body) as Sent | Sent[];
    return (Array.isArray(parsed) ? parsed : [parsed]).map((c) => ({
      id: c.id,
      method: String(c.method),
      params: JSON.stringify(c.params ?? null).toLowerCase(),
    }));
  } catch {
    return [];
  }
}
