import { z } from 'zod';
import { arg, defineCommand, text, type ArgDef, type CommandInput, type OpsCommand } from '../command';
import { deliveryView, endpointView, formatDelivery, formatEndpoint, formatSecret } from '../render';

// A merchant's webhook endpoints and the delivery log.

const merchantId: ArgDef = { name: 'merchantId', description: 'the merchant, MER_…' };
const endpointId: ArgDef = { name: 'endpointId', description: 'the endpoint, we_… (see webhooks list)' };
const endpointsPath = (input: CommandInput, suffix = '') =>
  `/merchants/${encodeURIComponent(arg(input, 'merchantId'))}/webhook-endpoints${suffix}`;
const endpointPath = (input: CommandInput, suffix = '') =>
  endpointsPath(input, `/${encodeURIComponent(arg(input, 'endpointId'))}${suffix}`);
const endpointAnswer = z.object({ endpoint: endpointView });

export const WEBHOOK_COMMANDS: readonly OpsCommand[] = [
  defineCommand({
    name: 'webhooks add',
    args: [merchantId],
    options: [
      {
        flags: '--url <url>',
        description: 'where deliveries go: https on a public address (ALLOW_PRIVATE_URLS lifts that in development)',
        required: true,
      },
    ],
    summary: 'Register a webhook endpoint for a merchant; prints its signing secret once.',
    request: (input) => ({ method: 'POST', path: endpointsPath(input), body: { url: text(input, 'url') } }),
    response: z.object({ endpoint: endpointView, secret: z.string() }),
    render: (b) => [`endpoint ${formatEndpoint(b.endpoint)}`, ...formatSecret('signing secret', b.secret)],
  }),
  defineCommand({
    name: 'webhooks list',
    args: [merchantId],
    summary: 'List a merchant’s webhook endpoints, enabled or not (never their secrets).',
    request: (input) => ({ method: 'GET', path: endpointsPath(input) }),
    response: z.object({ endpoints: z.array(endpointView) }),
    render: (b) => (b.endpoints.length ? b.endpoints.map(formatEndpoint) : ['no webhook endpoints']),
  }),
  defineCommand({
    name: 'webhooks disable',
    args: [merchantId, endpointId],
    summary: 'Stop delivering new events to an endpoint; deliveries under way continue.',
    request: (input) => ({ method: 'POST', path: endpointPath(input, '/disable') }),
    response: endpointAnswer,
    render: (b) => [`disabled ${formatEndpoint(b.endpoint)}`],
  }),
  defineCommand({
    name: 'webhooks enable',
    args: [merchantId, endpointId],
    summary: 'Deliver new events to a disabled endpoint again.',
    request: (input) => ({ method: 'POST', path: endpointPath(input, '/enable') }),
    response: endpointAnswer,
    render: (b) => [`enabled ${formatEndpoint(b.endpoint)}`],
  }),
  defineCommand({
    name: 'webhooks delete',
    args: [merchantId, endpointId],
    summary: 'Delete an endpoint and its secret; its delivery log stays.',
    request: (input) => ({ method: 'DELETE', path: endpointPath(input) }),
    response: endpointAnswer,
    render: (b) => [`deleted endpoint ${b.endpoint.id} ${b.endpoint.url}`],
  }),
  defineCommand({
    name: 'deliveries list',
    args: [{ name: 'paymentId', description: 'the payment, SV_…' }],
    summary: 'Webhook deliveries of a payment, with every attempt (status code, duration, error).',
    request: (input) => ({ method: 'GET', path: `/webhook-deliveries?paymentId=${encodeURIComponent(arg(input, 'paymentId'))}` }),
    response: z.object({ deliveries: z.array(deliveryView) }),
    render: (b) => (b.deliveries.length ? b.deliveries.flatMap(formatDelivery) : ['no deliveries']),
  }),
  defineCommand({
    name: 'deliveries resend',
    args: [{ name: 'deliveryId', description: 'the delivery, dlv_… (see deliveries list)' }],
    summary:
      'Deliver again now: same delivery and event ids, same body, a fresh signature (409 with the next attempt time while one is under way).',
    request: (input) => ({ method: 'POST', path: `/webhook-deliveries/${encodeURIComponent(arg(input, 'deliveryId'))}/resend` }),
    response: z.object({ deliveryId: z.string(), status: z.string(), mode: z.string().optional() }),
    render: (b) => [
      b.mode === 'attempt_now'
        ? `delivery ${b.deliveryId}: attempting now (its retry schedule goes on if this attempt fails)`
        : `delivery ${b.deliveryId} queued again (${b.status})`,
    ],
  }),
];
