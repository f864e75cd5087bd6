import postgres from 'postgres';
import { newPaymentId } from '../../src/domain/ids';
import { figureFrom, type Figure } from '../support/figures';
import { drive } from '../support/load';
import { groupCpuMs } from '../support/processes';
import type { Service } from '../support/services';
import { interleaved } from '../support/stats';
import type { BenchOptions } from '../options';

/** Sessions written directly (pending), so the lookup figures need no workflow. */
async function seedSessions(databaseUrl: string, merchantId: string, count: number): Promise<string[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const ids = Array.from({ length: count }, newPaymentId);
    for (const id of ids) {
      await sql`insert into checkout_sessions (id, merchant_id, status, amount_minor, currency, country_code, destination_asset, network, wallet_address, commission_bps, provider, rail_type, expires_at)
        values (${id}, ${merchantId}, 'pending', 2500, 'USD', 'US', 'USDC', 'polygon', '0x52908400098527886E0F7030069857D2E4169EE7', 100, 'sandbox', 'fiat_to_crypto', now() + interval '1 day')`;
    }
    return ids;
  } finally {
    await sql.end();
  }
}

/**
 * Lookup req/s at full speed, then p99 at half load: both sides are offered the same rate, half the
 * lower of the two full-speed rates of that round, so neither is past its knee.
 */
export async function lookupFigures(input: {
  options: BenchOptions;
  databaseUrl: string;
  ours: Service;
  bare: Service;
  merchantId: string;
  apiKey: string;
  log: (line: string) => void;
}): Promise<Figure[]> {
  const { options, ours, bare } = input;
  const ids = await seedSessions(input.databaseUrl, input.merchantId, 50);
  const figures: Figure[] = [];
  const faces: { id: string; title: string; path: (id: string) => string; headers: Record<string, string> }[] = [
    {
      id: 'merchant_lookup',
      title: 'merchant lookup',
      path: (id: string) => `/api/v1/payment-sessions/${id}`,
      headers: { authorization: `Bearer ${input.apiKey}` },
    },
    { id: 'public_lookup', title: 'public lookup', path: (id: string) => `/api/v1/checkout/sessions/${id}`, headers: {} },
  ];
  for (const face of faces) {
    const paths = ids.map(face.path);
    const load = (target: Service, rate?: number) =>
      drive({
        baseUrl: target.baseUrl,
        paths,
        headers: face.headers,
        connections: options.lookupConnections,
        seconds: options.lookupSeconds,
        rate,
      });
    // Warm both (JIT, pools, prepared statements) before anything counts.
    await load(ours);
    await load(bare);
    // Full speed, with the server's CPU per answered request (its process group, from /proc).
    const measured = async (target: Service) => {
      const cpu0 = groupCpuMs(target.child.pid!);
      const result = await load(target);
      return { rps: result.rps, cpuUs: ((groupCpuMs(target.child.pid!) - cpu0) * 1000) / result.requests };
    };
    const full = await interleaved(
      options.rounds,
      () => measured(ours),
      () => measured(bare),
    );
    const half = full.ours.map((o, i) => Math.min(o.rps!, full.baseline[i]!.rps!) / 2);
    const atHalf = await interleaved(
      options.rounds,
      async (r) => ({ p99: (await load(ours, half[r])).p99 }),
      async (r) => ({ p99: (await load(bare, half[r])).p99 }),
    );
    const what = `GET ${face.path('SV_…')}, ${options.lookupConnections} connections (autocannon in the bench process), server.ts as its own process with its pool of 10, the run's LOG_LEVEL and its default API_KEY_CACHE_SECONDS (5: ours reads the key, or on the public lookup the merchant's name, from Postgres once per 5 s; the baseline on every request).`;
    const baselineIs =
      'a bare Fastify + postgres.js process (prepared statements, no hooks, no logging) running the same key and session queries and the same rendering.';
    figures.push(
      figureFrom(full, 'rps', {
        id: `${face.id}_rps`,
        title: `${face.title} req/s`,
        unit: 'req/s',
        better: 'higher',
        includes: `${what} Full speed, ${options.lookupSeconds} s a round.`,
        baselineIs,
      }),
    );
    figures.push(
      figureFrom(full, 'cpuUs', {
        id: `${face.id}_cpu_us`,
        title: `${face.title} server CPU/request`,
        unit: 'µs',
        better: 'lower',
        includes: `${what} CPU (user + system) of the server's processes during the full-speed rounds, over the requests answered: steadier than req/s on a loaded machine.`,
        baselineIs,
      }),
    );
    figures.push(
      figureFrom(atHalf, 'p99', {
        id: `${face.id}_p99_half_load`,
        title: `${face.title} p99 at half load`,
        unit: 'ms',
        better: 'lower',
        includes: `${what} Both offered the same rate: half the lower full-speed req/s of the round.`,
        baselineIs,
      }),
    );
    const [rps, cpu, p99] = figures.slice(-3) as [Figure, Figure, Figure];
    input.log(
      `${face.title}: ours ${rps.ours.toFixed(0)} req/s vs ${rps.baseline.toFixed(0)}; ${cpu.ours.toFixed(0)} vs ${cpu.baseline.toFixed(0)} µs CPU/request; p99 at half load ${p99.ours} ms vs ${p99.baseline} ms`,
    );
  }
  return figures;
}
