import { connect, createServer, type Socket } from 'node:net';

/** One cut the proxy makes, on the first connection whose messages match. */
export interface Cut {
  /** Text of the client message that picks the connection (e.g. `INSERT INTO "operations"`). */
  after: string;
  /** Text of the message on that connection to cut at (default: the `after` message itself). */
  at?: string;
  /**
   * `answer-lost`: the server gets the message and answers (its commit lands), and the client's
   * connection is cut instead of given the answer. `never-sent`: cut before the server gets it.
   */
  mode: 'answer-lost' | 'never-sent';
  /** After the cut, refuse every new connection until `restore()`: Postgres gone with it. */
  thenDown?: boolean;
}

/**
 * A TCP proxy to Postgres that loses one answer, or one request, on purpose: the moment a primary
 * dies or the network drops between a statement and its answer, made exact. Messages are
 * matched on their text (the SQL in a Query or Parse message).
 */
export interface PgAnswerCutter {
  /** The database URL through the proxy. */
  readonly url: string;
  arm(cut: Cut): void;
  /** Whether the armed cut has been made. */
  readonly done: boolean;
  /** Takes new connections again. */
  restore(): void;
  close(): Promise<void>;
}

/** ReadyForQuery: the server's last message of every answer. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

export async function startPgAnswerCutter(databaseUrl: string): Promise<PgAnswerCutter> {
  const target = new URL(databaseUrl);
  let armed: Cut | undefined;
  let picked: Socket | undefined;
  let done = false;
  let down = false;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let cutting = false;
    let answer = Buffer.alloc(0);
    const cutBoth = () => {
      done = true;
      if (armed?.thenDown) down = true;
      armed = undefined;
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (armed && !picked && text.includes(armed.after)) picked = client;
      if (armed && picked === client && text.includes(armed.at ?? armed.after)) {
        if (armed.mode === 'never-sent') return cutBoth();
        cutting = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cutting) return void client.write(chunk);
      answer = Buffer.concat([answer, chunk]);
      if (answer.includes(READY_FOR_QUERY)) cutBoth();
    });
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no proxy port');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    arm: (cut) => {
      armed = cut;
      picked = undefined;
      done = false;
    },
    get done() {
      return done;
    },
    restore: () => {
      down = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
