import autocannon from 'autocannon';

export interface LoadResult {
  /** Completed 2xx requests per second over the run. */
  rps: number;
  /** 2xx answers. */
  requests: number;
  p50: number;
  p99: number;
  errors: number;
}

/**
 * Drives `paths` (cycled) on `baseUrl` with autocannon: at full speed, or at `rate` requests per
 * second in total (the "half load"). A run with non-2xx answers or errors is not a
 * measurement of the lookup, so it throws.
 */
export async function drive(input: {
  baseUrl: string;
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  rate?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: input.baseUrl,
    connections: input.connections,
    duration: input.seconds,
    headers: input.headers ?? {},
    requests: input.paths.map((path) => ({ method: 'GET', path })),
    ...(input.rate ? { overallRate: Math.max(1, Math.round(input.rate)) } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${input.baseUrl}${input.paths[0]}: ${result.non2xx} non-2xx answers and ${result.errors} errors in ${result.requests.total} requests`,
    );
  }
  return {
    rps: result['2xx'] / result.duration,
    requests: result['2xx'],
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
  };
}
