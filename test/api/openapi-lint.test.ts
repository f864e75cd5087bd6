import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/domain/errors';
import { useTestApp } from '../support/harness';

// The served document passes the ecosystem's own linters, as a merchant's CI or a
// portal would run them: Redocly's `recommended` and Spectral's `spectral:oas`, with no rule turned off.
const ctx = useTestApp();
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
// Neither linter may phone home from a test (no network here, and none wanted in CI).
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  SCARF_ANALYTICS: 'false',
  DO_NOT_TRACK: '1',
};

async function servedDocument(): Promise<string> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'openapi-lint-')), 'openapi.json');
  writeFileSync(file, res.body);
  return file;
}

/** A linter's exit code and output, whatever it was (a non-zero exit is a finding, not a crash). */
async function lint(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { env, cwd: ROOT, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the OpenAPI document under the ecosystem linters', () => {
  it("has no problem under Redocly's recommended ruleset", async () => {
    const file = await servedDocument();
    const out = await lint(bin('redocly'), [
      'lint',
      file,
      '--config',
      path.join(ROOT, 'ops/openapi/redocly.yaml'),
      '--format',
      'json',
      '--max-problems',
      '1000',
    ]);
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(out.code).toBe(0);
  }, 120_000);

  it("has no problem under Spectral's oas ruleset", async () => {
    const file = await servedDocument();
    const out = await lint(bin('spectral'), [
      'lint',
      file,
      '--ruleset',
      path.join(ROOT, 'ops/openapi/spectral.yaml'),
      '--format',
      'json',
      '--fail-severity',
      'hint',
      '--quiet',
    ]);
    const results = JSON.parse(out.stdout || '[]') as { code: string; message: string; path: string[]; severity: number }[];
    const problems = results.map((r) => `${r.code} (${r.severity}): ${r.message} at ${r.path.join('.')}`);
    expect(problems).toEqual([]);
    expect(out.code).toBe(0);
  }, 120_000);
});

// What the linters do not ask for but integrators read: an example on every body and every
// answer, each error example with the `error` value its status really carries, closed sets as enums.
type Media = {
  example?: unknown;
  examples?: Record<string, { value: { error?: string } }>;
  schema?: { examples?: unknown[]; $ref?: string };
};
type Op = {
  operationId: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Doc = {
  tags: { name: string }[];
  paths: Record<string, Record<string, Op>>;
  webhooks: Record<string, { post: Op & { parameters: { name: string }[] } }>;
};

describe('what the OpenAPI document shows integrators', () => {
  let doc: Doc;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
    );
  const hasExample = (m: Media) =>
    m.example !== undefined || Object.keys(m.examples ?? {}).length > 0 || (m.schema?.examples?.length ?? 0) > 0;

  it('has an example for every request body, every answer and every webhook payload', async () => {
    doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const missing: string[] = [];
    let seen = 0;
    for (const { where, op } of operations()) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        seen++;
        if (!hasExample(media)) missing.push(`${where} body ${type}`);
      }
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          seen++;
          if (!hasExample(media)) missing.push(`${where} ${status} ${type}`);
        }
      }
      expect(
        Object.entries(op.responses).some(([s, r]) => Number(s) < 300 && r.content),
        `${where} documents its success body`,
      ).toBe(true);
    }
    for (const [event, { post }] of Object.entries(doc.webhooks)) {
      if (!hasExample(post.requestBody!.content['application/json']!)) missing.push(`webhook ${event}`);
    }
    expect(missing).toEqual([]);
    expect(seen).toBeGreaterThan(300);
  });

  it('gives each error answer examples whose `error` is one its status carries, not one code for all', () => {
    const codesByStatus = new Map<string, Set<string>>();
    for (const { where, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        // Only the envelope's answers: /readyz's 503 is its own body, with its own example.
        if (Number(status) < 400 || !response.content?.['application/json']?.schema?.$ref) continue;
        const examples = Object.values(response.content?.['application/json']?.examples ?? {});
        expect(examples.length, `${where} ${status} has error examples`).toBeGreaterThan(0);
        for (const { value } of examples) {
          expect(String(ERROR_STATUS[value.error as ErrorCode]), `${where} ${status}: ${value.error}`).toBe(status);
          if (!codesByStatus.has(status)) codesByStatus.set(status, new Set());
          codesByStatus.get(status)!.add(value.error!);
        }
      }
    }
    expect([...codesByStatus.get('401')!]).toEqual(['Unauthorized']);
    expect([...codesByStatus.get('403')!].sort()).toEqual(['AccountNotApproved', 'InsufficientScope', 'PaymentsDisabled']);
    expect([...codesByStatus.get('409')!].sort()).toEqual(['Conflict', 'IdempotencyConflict']);
    expect([...codesByStatus.get('503')!]).toEqual(['Unavailable']);
  });

  it('declares each tag once and uses only those; public operations say so with security: []', () => {
    const declared = doc.tags.map((t) => t.name);
    expect(new Set(declared).size).toBe(declared.length);
    for (const { where, op } of [...operations(), ...Object.entries(doc.webhooks).map(([e, w]) => ({ where: e, op: w.post }))]) {
      for (const tag of op.tags ?? []) expect(declared, where).toContain(tag);
      expect(op.security, where).toBeDefined();
      expect(op.operationId, where).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
    }
    expect(doc.paths['/api/v1/checkout/sessions/{id}']!.get!.security).toEqual([]);
    expect(doc.paths['/api/checkout']!.post!.security).toEqual([]);
    expect(doc.webhooks['payment.event']!.post.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['svc-signature', 'svc-timestamp', 'svc-event-id', 'svc-delivery-id', 'svc-event-type']),
    );
  });

  it('lists closed value sets as enums: statuses, rails, assets, networks, event types', () => {
    const session = (
      doc.paths['/api/v1/checkout/sessions']!.post!.responses['201']!.content!['application/json']!.schema as {
        properties: { checkoutSession: { properties: Record<string, { enum?: string[] }> } };
      }
    ).properties.checkoutSession.properties;
    expect(session.status!.enum).toEqual(['pending', 'processing', 'completed', 'failed', 'expired', 'canceled']);
    expect(session.railType!.enum).toEqual(['fiat_to_crypto', 'crypto_transfer']);
    expect(session.destinationAsset!.enum).toEqual(['USDC', 'USDT']);
    expect(session.network!.enum).toContain('polygon');
    const body = doc.webhooks['payment.event']!.post.requestBody!.content['application/json']!.schema as {
      properties: Record<string, { enum?: string[] }>;
    };
    expect(body.properties.event!.enum).toContain('payment.completed');
    expect(body.properties.status!.enum).toContain('completed');
    expect(body.properties.railType!.enum).toEqual(['fiat_to_crypto', 'crypto_transfer']);
  });
});
