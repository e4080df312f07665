/**
 * A lean Solana JSON-RPC client for the send path. web3.js's Connection turns a node's error into
 * a message string and drops its structured `err`; the pipeline needs that `err` (which
 * instruction failed, with which program error) and the JSON-RPC error code, so it speaks
 * JSON-RPC itself here. web3.js still builds the instructions and reads accounts.
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

export class SolanaRpcClient {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new SolanaTransportError(`${method}: ${errorText(error)}`);
    }
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw new SolanaTransportError(`${method}: HTTP ${response.status} (${errorText(error)})`);
    }
    if (body.error) throw new SolanaRpcError(body.error.code, body.error.message, body.error.data);
    if (!response.ok || !('result' in body)) {
      throw new SolanaTransportError(`${method}: HTTP ${response.status} without a result`);
    }
    return body.result as T;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
