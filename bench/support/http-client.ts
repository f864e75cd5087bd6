import http from 'node:http';

/**
 * The bench's own requests to the servers under test (a merchant's create, the sandbox's pay helper):
 * node:http over kept-alive sockets. On this two-core machine the client shares the cores with the
 * stack it measures, so it should take as little of them as it can: the global fetch (undici) cost
 * 2.4 ms of the bench process's CPU per created session, more than the API server's 3.2 ms
 * (`--only creation`, 2026-11-27). The lookups' load generator (autocannon) is node:http too.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
