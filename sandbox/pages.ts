import { html, raw } from '../src/domain/html';
import { NETWORK_NAMES } from '../src/domain/assets';
import type { ChainReceipt } from './explorer';
import type { ChainTransfer, SandboxPayment } from './store';

// The sandbox's own pages, styled apart from ours so a customer (and a test) can tell them apart.

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#fdf6e3;color:#222;margin:0;padding:1rem;display:flex;justify-content:center}
main{max-width:26rem;width:100%;background:#fff;border:2px solid #7d5800;border-radius:10px;padding:1.25rem;margin-top:2rem}
h1{font-size:1.2rem;margin:0 0 .5rem}.badge{display:inline-block;background:#7d5800;color:#fff;border-radius:4px;padding:0 .4rem;font-size:.75rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem}dt{color:#666}dd{margin:0;overflow-wrap:anywhere}
button{width:100%;min-height:46px;margin-top:.6rem;font:inherit;font-weight:600;border-radius:8px;border:2px solid #7d5800;cursor:pointer}
.pay{background:#7d5800;color:#fff}.decline{background:#fff;color:#7d5800}.mono{font-family:ui-monospace,monospace;font-size:.85rem}`;

function layout(title: string, body: ReturnType<typeof html>): string {
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${title}</title><style>${raw(STYLE)}</style></head><body><main><span class="badge">SANDBOX PROVIDER</span>${body}</main></body></html>`
      .html
  }`;
}

export function paymentPage(p: SandboxPayment): string {
  const payable = p.status === 'requires_action';
  return layout(
    `Pay ${p.sourceAmount} ${p.sourceCurrency}`,
    html`<h1>Pay ${p.sourceAmount} ${p.sourceCurrency} by card</h1>
<dl>
<dt>You pay</dt><dd id="source">${p.sourceAmount} ${p.sourceCurrency}</dd>
<dt>Rate</dt><dd>${p.quote.rate} ${p.destinationAsset}/${p.sourceCurrency}</dd>
<dt>Delivered</dt><dd id="destination">${p.quote.destinationAmount} ${p.destinationAsset} on ${NETWORK_NAMES[p.network]}</dd>
<dt>To wallet</dt><dd class="mono">${p.walletAddress}</dd>
<dt>Status</dt><dd id="status">${p.status}</dd>
</dl>
${
  payable
    ? html`<form method="post" action="/checkout/${p.id}/confirm"><input type="hidden" name="outcome" value="succeeded"><button class="pay" type="submit">Pay ${p.sourceAmount} ${p.sourceCurrency}</button></form>
<form method="post" action="/checkout/${p.id}/confirm"><input type="hidden" name="outcome" value="declined"><button class="decline" type="submit">Decline</button></form>`
    : p.status === 'canceled'
      ? html`<p id="closed">The merchant closed this payment: it can no longer be paid, and nothing was charged.</p><p><a href="${p.returnUrl}">Back to the merchant</a></p>`
      : html`<p>This payment is ${p.status}.</p><p><a href="${p.returnUrl}">Back to the merchant</a></p>`
}`,
  );
}

export function explorerPage(t: ChainTransfer): string {
  return layout(
    `Transaction ${t.hash}`,
    html`<h1>Sandbox explorer: transaction</h1>
<dl>
<dt>Hash</dt><dd class="mono" id="hash">${t.hash}</dd>
<dt>Network</dt><dd>${NETWORK_NAMES[t.network]}</dd>
<dt>Transfer</dt><dd>${t.amount} ${t.asset}</dd>
<dt>To</dt><dd class="mono">${t.to}</dd>
<dt>Status</dt><dd id="status">confirmed</dd>
<dt>Confirmed</dt><dd>${t.confirmedAt}</dd>
</dl>`,
  );
}

/** Any transaction of the local chain, as its receipt says (explorer.ts). */
export function receiptPage(r: ChainReceipt): string {
  return layout(
    `Transaction ${r.hash}`,
    html`<h1>Sandbox explorer: transaction</h1>
<dl>
<dt>Hash</dt><dd class="mono" id="hash">${r.hash}</dd>
<dt>Chain</dt><dd>${r.chainId} (${r.networks.map((n) => NETWORK_NAMES[n]).join(', ')})</dd>
<dt>Status</dt><dd id="status">${r.status}</dd>
<dt>Block</dt><dd id="block">${r.blockNumber.toString()}</dd>
<dt>Confirmations</dt><dd id="confirmations">${r.confirmations.toString()}</dd>
<dt>From</dt><dd class="mono">${r.from}</dd>
<dt>To</dt><dd class="mono">${r.to ?? 'contract creation'}</dd>
</dl>
${
  r.transfers.length > 0
    ? html`<h2>Token transfers</h2><ul id="transfers">${r.transfers.map((t) => html`<li class="mono">${t.amount} ${t.asset} from ${t.from} to ${t.to}</li>`)}</ul>`
    : ''
}`,
  );
}

export function notFoundPage(what: string): string {
  return layout('Not found', html`<h1>${what} not found</h1>`);
}
