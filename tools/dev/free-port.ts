import net from 'node:net';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port in [from, to): for servers that store their port in a narrow column (Temporal keeps
 * membership ports in a smallint, so they must stay below 32768, under Linux's ephemeral range).
 */
export async function freePortIn(from: number, to: number): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in [${from}, ${to})`);
}
