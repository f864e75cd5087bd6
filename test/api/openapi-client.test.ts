import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness';

// A merchant's typed client, generated from the served document by openapi-typescript, compiles
// against code that uses it the way docs/sdk.md does; and the same types refuse a wrong request, so
// the compile is a check that can fail.
const ctx = useTestApp();

const USAGE = `
import type { paths, webhooks } from './api';
type CreateBody = paths['/api/v1/checkout/sessions']['post']['requestBody']['content']['application/json'];
type Created = paths['/api/v1/checkout/sessions']['post']['responses'][201]['content']['application/json'];
type Expired = paths['/api/v1/checkout/sessions/{id}/expire']['post']['responses'][200]['content']['application/json'];
type Problem = paths['/api/v1/checkout/sessions/{id}/expire']['post']['responses'][409]['content']['application/json'];
type Lookup = paths['/api/v1/payment-sessions/{id}']['get']['responses'][200]['content']['application/json'];
type ListQuery = NonNullable<paths['/api/v1/checkout/sessions']['get']['parameters']['query']>;
type Listed = paths['/api/v1/checkout/sessions']['get']['responses'][200]['content']['application/json'];

export const body: CreateBody = { amount: 25, currency: 'USD', countryCode: 'US', locale: 'de', successUrl: 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}' };
export const checkoutUrl = (r: Created): string => r.checkoutSession.checkoutUrl;
export const status = (r: Expired): string => r.checkoutSession.status;
export const code = (p: Problem): string => p.error;
export const completedAt = (r: Lookup): string | null => r.paymentSession.completedAt;
export const listQuery: ListQuery = { status: ['pending', 'completed'], orderId: 'order-1042', limit: 50, cursor: 'WyI' };
export const nextPage = (r: Listed): string | null => (r.hasMore ? r.nextCursor : null) ?? r.checkoutSessions[0]?.id ?? null;
export type PaymentEvent = webhooks['payment.event']['post']['requestBody'];
`;

function compile(dir: string, files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((f) => path.join(dir, f)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a typed client generated from the OpenAPI document', () => {
  it('compiles with the routes merchants use, and refuses a request the API would refuse', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const api = astToString(await openapiTS(res.json()));
    expect(api).toContain('expireCheckoutSession');

    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-client-'));
    expect(compile(dir, { 'api.ts': api, 'usage.ts': USAGE })).toEqual([]);

    const wrong = USAGE.replace("locale: 'de'", "locale: 'it'").replace('amount: 25,', "amount: '25',");
    const errors = compile(dir, { 'api.ts': api, 'usage.ts': wrong });
    expect(errors.join('\n')).toMatch(/'"it"' is not assignable|Type '"it"'/);
    expect(errors.join('\n')).toMatch(/Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});
