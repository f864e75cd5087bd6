import net from 'node:net';

/**
 * A TCP proxy to a real server that can be frozen: while frozen it keeps every connection open and
 * forwards nothing either way, as a hung host or a silent network partition does.
 */
export async function startFreezableProxy(target: { host: string; port: number }) {
  let frozen = false;
  let cut = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('data', (d) => void (frozen || upstream.write(d)));
    upstream.on('data', (d) => void (frozen || client.write(d)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze: () => void (frozen = true),
    thaw: () => void (frozen = false),
    /** Drops every connection and refuses new ones, as a network that went away does, until `restore`. */
    cut: () => {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore: () => void (cut = false),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A TCP server that accepts connections and never answers (a hung host): `sockets` are the connections it holds. */
export async function startSilentServer() {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
