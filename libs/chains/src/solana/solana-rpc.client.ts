import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * A lean Solana JSON-RPC client for the send path. web3.js's Connection turns a node's error into
 * a message string and drops its structured `err`; the pipeline needs that `err` (which
 * instruction failed, with which program error) and the JSON-RPC error code, so it speaks
 * JSON-RPC itself here. It uses node:http with keep-alive rather than fetch: fetch's web streams
 * and abort signals cost about a millisecond of CPU per call, several calls per operation.
 */

/** The node answered with a JSON-RPC error (it was reached: not a transport fault). */
export class SolanaRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'SolanaRpcError';
  }
}

/** The node could not be reached or did not answer in time: the outcome is unknown. */
export class SolanaTransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SolanaTransportError';
  }
}

/** What the send path needs of a JSON-RPC endpoint: one client, or several with failover. */
export interface SolanaRpc {
  call<T>(method: string, params: unknown[]): Promise<T>;
}

interface JsonRpcReply<T> {
  result?: T;
  error?: { code: number; message: string; data?: unknown };
}

export class SolanaRpcClient implements SolanaRpc {
  private nextId = 1;
  private readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    this.url = new URL(url);
    const secure = this.url.protocol === 'https:';
    this.agent = secure
      ? new HttpsAgent({ keepAlive: true, maxSockets: 64 })
      : new HttpAgent({ keepAlive: true, maxSockets: 64 });
    this.send = secure ? httpsRequest : httpRequest;
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    let status: number;
    let text: string;
    try {
      ({ status, text } = await this.post(body));
    } catch (error) {
      throw new SolanaTransportError(`${method}: ${errorText(error)}`);
    }
    let reply: JsonRpcReply<T>;
    try {
      reply = JSON.parse(text) as JsonRpcReply<T>;
    } catch {
      throw new SolanaTransportError(`${method}: HTTP ${status} with a body that is not JSON`);
    }
    if (reply.error) {
      throw new SolanaRpcError(reply.error.code, reply.error.message, reply.error.data);
    }
    if (status !== 200 || !('result' in reply)) {
      throw new SolanaTransportError(`${method}: HTTP ${status} without a result`);
    }
    return reply.result as T;
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = this.send(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          timeout: this.timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer in ${this.timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
