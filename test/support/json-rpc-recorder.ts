import { Transaction } from 'ethers';
import { startJsonRpcProxy, type JsonRpcAnswer, type JsonRpcRequest } from './json-rpc-proxy';

export interface JsonRpcCall {
  method: string;
  params: unknown[];
}

/**
 * An HTTP JSON-RPC proxy in front of a chain that records every call the service makes (single
 * or batched), can hold `eth_call`s for a while, so that concurrent readers overlap, and can
 * play a node with a minimum tip (geth's `--txpool.pricelimit`, Polygon's protocol floor).
 */
export interface JsonRpcRecorder {
  readonly url: string;
  calls(): JsonRpcCall[];
  /** Every `eth_call` to this contract address (any letter case). */
  ethCallsTo(address: string): JsonRpcCall[];
  holdEthCalls(ms: number): void;
  /**
   * Refuses every sent transaction whose tip (a legacy one's gas price) is under `wei`, in
   * geth's words; null takes every transaction again.
   */
  refuseTipsBelow(wei: bigint | null): void;
  /** How many sent transactions the floor refused. */
  refusedSends(): number;
  /**
   * Empties the sender's balance on the chain just before the next transaction sent reaches it
   * (a drain between the service reading the balance and broadcasting): the chain itself then
   * refuses it for funds. Resolves with the drained address once that happened.
   */
  drainSenderOnNextSend(): Promise<string>;
  close(): Promise<void>;
}

export async function startJsonRpcRecorder(targetUrl: string): Promise<JsonRpcRecorder> {
  const calls: JsonRpcCall[] = [];
  let holdMs = 0;
  let minimumTip: bigint | null = null;
  let refused = 0;
  let drain: ((address: string) => void) | null = null;

  const drainSenderOf = async (send: JsonRpcRequest): Promise<void> => {
    const drained = drain!;
    drain = null;
    const sender = Transaction.from(String(send.params![0])).from!;
    await fetch(targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'anvil_setBalance',
        params: [sender, '0x0'],
      }),
    });
    drained(sender);
  };

  /** geth's answer to a transaction under its minimum tip; null when it passes. */
  const floorRefusal = (call: JsonRpcRequest): JsonRpcAnswer | null => {
    if (minimumTip === null || call.method !== 'eth_sendRawTransaction') return null;
    const tx = Transaction.from(String(call.params![0]));
    const tip = tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
    if (tip >= minimumTip) return null;
    refused += 1;
    const message = `transaction underpriced: gas tip cap ${tip}, minimum needed ${minimumTip}`;
    return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message } };
  };

  const proxy = await startJsonRpcProxy(targetUrl, {
    async before(batch) {
      calls.push(...batch.map(({ method, params }) => ({ method, params: params ?? [] })));
      const send = batch.find((call) => call.method === 'eth_sendRawTransaction');
      if (drain && send) await drainSenderOf(send);
      if (holdMs > 0 && batch.some((call) => call.method === 'eth_call')) {
        await new Promise((resolve) => setTimeout(resolve, holdMs));
      }
    },
    answer: floorRefusal,
  });
  return {
    url: proxy.url,
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
    refuseTipsBelow: (wei) => {
      minimumTip = wei;
    },
    refusedSends: () => refused,
    drainSenderOnNextSend: () =>
      new Promise<string>((resolve) => {
        drain = resolve;
      }),
    close: () => proxy.close(),
  };
}
