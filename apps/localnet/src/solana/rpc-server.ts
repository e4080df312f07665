import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonRpcDispatcher } from './json-rpc';
import { RpcErrorCode } from './rpc.errors';

const MAX_BODY_BYTES = 50 * 1024 * 1024;

/** HTTP transport for the JSON-RPC dispatcher: POST / with a JSON body, GET /health. */
export async function startRpcServer(
  dispatcher: JsonRpcDispatcher,
  opts: { host: string; port: number },
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => handle(dispatcher, req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

function handle(dispatcher: JsonRpcDispatcher, req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  if (req.method === 'OPTIONS') {
    res.setHeader('access-control-allow-headers', 'content-type, solana-client');
    res.setHeader('access-control-allow-methods', 'POST, GET, OPTIONS');
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (res.writableEnded) return;
    let body: string | undefined;
    try {
      body = dispatcher.handle(Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      const error = {
        code: RpcErrorCode.internalError,
        message: `Internal error: ${(err as Error).message}`,
      };
      body = JSON.stringify({ jsonrpc: '2.0', error, id: null });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body ?? '');
  });
}
