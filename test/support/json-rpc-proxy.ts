import { createServer, type IncomingMessage } from 'node:http';

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown[];
}

export interface JsonRpcAnswer {
  id: number | string;
  [field: string]: unknown;
}

/**
 * What a proxy does with the calls of one request (single or batched): `before` runs first
 * (to record, hold or change the chain), then each call `answer` returns an answer for is
 * answered here and the rest go to the chain together, in one batch, replies in their order.
 */
export interface JsonRpcInterception {
  before?(calls: JsonRpcRequest[]): Promise<void>;
  answer(call: JsonRpcRequest): JsonRpcAnswer | null;
}

export interface JsonRpcProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** An HTTP JSON-RPC proxy in front of `targetUrl` that answers some calls itself. */
export async function startJsonRpcProxy(
  targetUrl: string,
  interception: JsonRpcInterception,
  options: { port?: number; keepAliveTimeoutMs?: number } = {},
): Promise<JsonRpcProxy> {
  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const upstream = await fetch(targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: upstream.status, text: await upstream.text() };
  };

  const reply = async (body: string): Promise<{ status: number; text: string }> => {
    const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    await interception.before?.(batch);
    const answers = batch.map((call) => interception.answer(call));
    if (answers.every((answer) => answer === null)) return forward(body);
    const passed = batch.filter((_, index) => answers[index] === null);
    const upstream = passed.length
      ? ([JSON.parse((await forward(JSON.stringify(passed))).text)].flat() as JsonRpcAnswer[])
      : [];
    const byId = new Map(upstream.map((answer) => [answer.id, answer]));
    const replies = batch.map((call, index) => answers[index] ?? byId.get(call.id));
    return { status: 200, text: JSON.stringify(Array.isArray(parsed) ? replies : replies[0]) };
  };

  const server = createServer((request, response) => {
    void (async () => {
      const { status, text } = await reply(await bodyOf(request));
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(text);
    })().catch(() => response.destroy());
  });
  if (options.keepAliveTimeoutMs) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
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
