import net from 'node:net';

/**
 * A round-robin TCP load balancer, as a deployment puts in front of several API processes: each new
 * connection goes to the next upstream; one that refuses the connection is skipped. Connections in
 * flight to a process that dies are cut, as a real balancer's are, and the client sees the error.
 */
export async function startBalancer(upstreams: readonly number[]) {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  };

  function connect(client: net.Socket, tried: number) {
    if (tried >= upstreams.length) return client.destroy();
    const port = upstreams[next++ % upstreams.length]!;
    const upstream = net.connect(port, '127.0.0.1');
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    // Refused before anything was sent: the next upstream gets the connection.
    upstream.once('error', () => {
      if (!connected) connect(client, tried + 1);
    });
  }

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    connect(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
