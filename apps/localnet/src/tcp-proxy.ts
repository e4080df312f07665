import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a chain's RPC (HTTP or WebSocket), Postgres or Redis. It can add a
 * network's latency to the link (benchmarks on a realistic chain), and its link can be cut and
 * restored, as in an outage (tests).
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

export interface TcpProxyOptions {
  /**
   * Round-trip time the link adds, in milliseconds: every chunk is delivered half of it after it
   * arrived, in each direction and in order (so a request and its answer take this much longer,
   * and a WebSocket notification half of it). 0: bytes are piped through at once.
   */
  latencyMs?: number;
}

export async function startTcpProxy(
  targetUrl: string,
  opts: TcpProxyOptions = {},
): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const oneWayMs = (opts.latencyMs ?? 0) / 2;
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
    // Small requests must not wait for Nagle's algorithm on top of the configured latency.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    forward(client, upstream, oneWayMs);
    forward(upstream, client, oneWayMs);
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

/** Sends what `from` receives on to `to`, each chunk (and the end) `delayMs` after it arrived. */
function forward(from: Socket, to: Socket, delayMs: number): void {
  if (delayMs <= 0) {
    from.pipe(to);
    return;
  }
  const due: { at: number; chunk: Buffer | null }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deliver = (): void => {
    timer = undefined;
    // Timers may fire up to a millisecond early against performance.now().
    const now = performance.now() + 1;
    while (due.length > 0 && due[0].at <= now) {
      const { chunk } = due.shift()!;
      if (to.destroyed) continue;
      if (chunk === null) to.end();
      else if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    }
    if (due.length > 0) timer = setTimeout(deliver, due[0].at - performance.now());
  };
  const schedule = (chunk: Buffer | null): void => {
    due.push({ at: performance.now() + delayMs, chunk });
    timer ??= setTimeout(deliver, delayMs);
  };
  from.on('data', (chunk: Buffer) => schedule(chunk));
  from.once('end', () => schedule(null));
  to.once('close', () => {
    clearTimeout(timer);
    due.length = 0;
  });
}
