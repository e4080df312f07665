import http from 'node:http';
import https from 'node:https';
import type { JsonRpcPayload, JsonRpcResult } from 'ethers';

/** The endpoint answered, but not with JSON-RPC: an HTTP error status or a body that is not. */
export class RpcHttpError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'RpcHttpError';
  }
}

/**
 * One JSON-RPC node over HTTP(S), on keep-alive connections: POSTs one call or a batch and returns
 * the node's answers as they are, error answers included (ethers maps those). Throws only when no
 * JSON-RPC answer came: unreachable, reset, no answer within `timeoutMs`, an HTTP error status, a
 * body that is not JSON. Those are the transport failures the endpoint pool fails over on.
 *
 * It stands in for ethers' FetchRequest, which every RPC call of the worker went through. Measured
 * against anvil, 8 calls in flight: 103 µs of CPU a call with FetchRequest, 42 µs with this; in
 * the worker's profile (bench:evm) FetchRequest's pure-JS UTF-8 decoding of the answers alone
 * took 0.28 ms a mint, 7% of the worker's CPU.
 */
export class JsonRpcHttpEndpoint {
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {
    const secure = new URL(url).protocol === 'https:';
    this.transport = secure ? https : http;
    this.agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true });
  }

  async send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const { status, body } = await this.post(JSON.stringify(payload));
    return answers(status, body);
  }

  destroy(): void {
    this.agent.destroy();
  }

  private post(body: string): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const request = this.transport.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          signal: AbortSignal.timeout(this.timeoutMs),
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }
}

function answers(status: number, body: Buffer): JsonRpcResult[] {
  if (status < 200 || status > 299) {
    throw new RpcHttpError(`HTTP status ${status} from the RPC endpoint`, `HTTP_${status}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new RpcHttpError('The RPC endpoint answered with a body that is not JSON', 'BAD_DATA');
  }
  return (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcResult[];
}
