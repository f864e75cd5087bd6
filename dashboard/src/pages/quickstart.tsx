import { Link } from '@tanstack/react-router';
import { Page } from '../ui';
import { CopyButton } from '../values';

// A first payment through the API, from this dashboard: the steps of the README's "A first payment",
// with this instance's own address in the commands, so it reads right on any self-hosted copy.

export function Quickstart() {
  const origin = window.location.origin;
  const create = `curl -s ${origin}/api/v1/checkout/sessions \\
  -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' \\
  -d '{"amount": 25, "currency": "USD", "countryCode": "US", "orderId": "1001"}'`;
  const read = `curl -s ${origin}/api/v1/transactions/SV_… -H "authorization: Bearer $API_KEY"`;
  return (
    <Page title="Quickstart">
      <p>A first payment in four steps, with this server’s own address.</p>
      <ol className="steps">
        <li>
          <h2>Get an API key</h2>
          <p>
            Your live key is shown once, on the <Link to="/">Overview</Link>, when the account is approved; more keys, with fewer rights,
            are made under <Link to="/developers">Developers</Link>. Put it in <code>API_KEY</code>.
          </p>
        </li>
        <li>
          <h2>Set where the money goes</h2>
          <p>
            A settlement wallet per asset and network, on the <Link to="/money">Money</Link> page: payouts go there.
          </p>
        </li>
        <li>
          <h2>Open a checkout session</h2>
          <pre className="code" tabIndex={0} aria-label="Command: open a checkout session">
            {create}
          </pre>
          <CopyButton value={create} what="the command" unnamed />
          <p>
            Send the customer to its <code>checkoutUrl</code>. Payments you take without code, by a shared page, are{' '}
            <Link to="/links">payment links</Link>.
          </p>
        </li>
        <li>
          <h2>Hear of it</h2>
          <p>
            Add a webhook endpoint under <Link to="/developers">Developers</Link> for <code>payment.completed</code>, or read the payment:
          </p>
          <pre className="code" tabIndex={0} aria-label="Command: read a payment">
            {read}
          </pre>
          <p>
            It shows in <Link to="/payments">Payments</Link> at once; ⌘K, Ctrl+K or / finds it by its id, its order id or a transaction
            hash.
          </p>
        </li>
      </ol>
      <p>
        Every route, its fields and its errors: the <a href="/docs">API reference</a> this server publishes.
      </p>
    </Page>
  );
}
