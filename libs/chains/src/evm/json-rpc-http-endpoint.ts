import type { Agent } from 'node:http';
import type { JsonRpcPayload, JsonRpcResult } from 'ethers';
import { keepAliveAgent, postJson } from '../json-post';

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
 * One JSON-RPC node over HTTP(S), on keep-alive connections (see `postJson`): POSTs one call or a
 * batch and returns the node's answers as they are, error answers included (ethers maps those).
 * Throws only when no JSON-RPC answer came: unreachable, reset, no answer within `timeoutMs`, an
 * HTTP error status, a body that is not JSON. Those are the transport failures the endpoint pool
 * fails over on. It stands in for ethers' FetchRequest under every RPC call of the worker.
 */
export class JsonRpcHttpEndpoint {
  private readonly agent: Agent;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {
    this.agent = keepAliveAgent(url);
  }

  async send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const { status, body } = await postJson(this.url, JSON.stringify(payload), {
      agent: this.agent,
      timeoutMs: this.timeoutMs,
    });
    return answers(status, body);
  }

  destroy(): void {
    this.agent.destroy();
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
