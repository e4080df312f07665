import { createServer, type IncomingMessage } from 'node:http';

export interface JsonRpcCall {
  method: string;
  params: unknown[];
}

/**
 * An HTTP JSON-RPC proxy in front of a chain that records every call the service makes (single
 * or batched), and can hold `eth_call`s for a while, so that concurrent readers overlap.
 */
export interface JsonRpcRecorder {
  readonly url: string;
  calls(): JsonRpcCall[];
  /** Every `eth_call` to this contract address (any letter case). */
  ethCallsTo(address: string): JsonRpcCall[];
  holdEthCalls(ms: number): void;
  close(): Promise<void>;
}

export async function startJsonRpcRecorder(targetUrl: string): Promise<JsonRpcRecorder> {
  const calls: JsonRpcCall[] = [];
  let holdMs = 0;
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const parsed = JSON.parse(body) as JsonRpcCall | JsonRpcCall[];
      const batch = Array.isArray(parsed) ? parsed : [parsed];
      calls.push(...batch.map(({ method, params }) => ({ method, params })));
      if (holdMs > 0 && batch.some((call) => call.method === 'eth_call')) {
        await new Promise((resolve) => setTimeout(resolve, holdMs));
      }
      const upstream = await fetch(targetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      response.writeHead(upstream.status, { 'content-type': 'application/json' });
      response.end(await upstream.text());
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => [...calls],
    ethCallsTo: (to) =>
      calls.filter(
        (call) =>
          call.method === 'eth_call' &&
          String((call.params[0] as { to?: string })?.to).toLowerCase() === to.toLowerCase(),
      ),
    holdEthCalls: (ms) => {
      holdMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}
