import type { Agent } from 'node:http';
import { keepAliveAgent, postJson } from '../json-post';

/**
 * A lean Solana JSON-RPC client for the send path. web3.js's Connection turns a node's error into
 * a message string and drops its structured `err`; the pipeline needs that `err` (which
 * instruction failed, with which program error) and the JSON-RPC error code, so it speaks
 * JSON-RPC itself here, over keep-alive connections (see `postJson`).
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
  private readonly agent: Agent;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {
    this.agent = keepAliveAgent(url, 64);
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    let status: number;
    let text: string;
    try {
      const answer = await postJson(this.url, body, {
        agent: this.agent,
        timeoutMs: this.timeoutMs,
      });
      status = answer.status;
      text = answer.body.toString('utf8');
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
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
