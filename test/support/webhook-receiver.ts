import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got, as it came (the raw body is what signatures cover). */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: {
    id: string;
    sequence: number | null;
    type: string;
    created_at: string;
    data: Record<string, any>;
  };
  at: number;
  /** What the receiver answered (undefined: it stalled). */
  answered?: number;
}

/**
 * How the receiver answers its n-th request (0-based): a status, or 'stall' to hold it open
 * without answering.
 */
export type ReceiverBehaviour = (request: ReceivedWebhook, index: number) => number | 'stall';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answered 2xx: the deliveries the receiver took. */
  accepted(): ReceivedWebhook[];
  behave(behaviour: ReceiverBehaviour): void;
  /** Resolves once `predicate` holds of the requests so far (polled; bounded). */
  until(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1, as a client would run one; answers 200 unless told. */
export async function startWebhookReceiver(
  behaviour: ReceiverBehaviour = () => 200,
): Promise<WebhookReceiver> {
  let behave = behaviour;
  const received: ReceivedWebhook[] = [];
  const sockets = new Set<Socket>();
  const stalled = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const webhook: ReceivedWebhook = {
        headers: request.headers,
        rawBody,
        body: JSON.parse(rawBody),
        at: Date.now(),
      };
      const answer = behave(webhook, received.length);
      received.push(webhook);
      if (answer === 'stall') {
        stalled.add(response);
        return;
      }
      webhook.answered = answer;
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    accepted: () => received.filter((r) => r.answered !== undefined && r.answered < 300),
    behave: (next) => (behave = next),
    until: async (predicate, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) {
          throw new Error(
            `Receiver: condition not met in ${timeoutMs} ms; got ` +
              JSON.stringify(received.map((r) => [r.body.type, r.body.sequence, r.answered])),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
