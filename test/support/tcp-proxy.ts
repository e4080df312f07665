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
   * Drops every open connection and holds new ones open without a byte of answer until restored
   * (then lets them through, as a healed network delivers what it held): a host that has gone
   * silent, which only a client's own timeout ends.
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
  /** Connections that arrived while stalled, unanswered: they go through once restored. */
  const held = new Set<Socket>();
  const link = (client: Socket): void => {
    const upstream = connect(Number(target.port), target.hostname);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  };
  const server = createServer((client) => {
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'stalled') {
      // Held like packets in a partition: what the client sent waits in its socket's buffer.
      held.add(client);
      client.once('close', () => held.delete(client));
      client.on('error', () => undefined);
      return;
    }
    link(client);
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
      // The partition heals: held connections reach the server, as their packets would.
      for (const client of held) if (!client.destroyed) link(client);
      held.clear();
    },
    close: async () => {
      for (const socket of [...sockets, ...held]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
