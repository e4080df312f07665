import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a chain's RPC, Postgres or Redis whose link can be cut and restored, as
 * in an outage.
 */
export interface TcpProxy {
  /** The target URL with its port replaced by the proxy's. */
  readonly url: string;
  /** Drops every open connection and resets new ones until restored. */
  cut(): void;
  /**
   * Drops every open connection and holds new ones open without a byte of answer until restored:
   * a host that has gone silent, which only a client's own timeout ends.
   */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let mode: 'up' | 'cut' | 'stalled' = 'up';
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'stalled') {
      track(client);
      client.on('error', () => undefined);
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: targetUrl.replace(`:${target.port}`, `:${port}`),
    cut: () => {
      mode = 'cut';
      for (const socket of sockets) socket.resetAndDestroy();
    },
    stall: () => {
      mode = 'stalled';
      for (const socket of sockets) socket.resetAndDestroy();
    },
    restore: () => {
      mode = 'up';
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
