import { createServer, type IncomingMessage } from 'node:http';
import { Transaction } from 'ethers';

export interface JsonRpcCall {
  method: string;
  params: unknown[];
}

interface JsonRpcRequest extends JsonRpcCall {
  jsonrpc: '2.0';
  id: number | string;
}

interface JsonRpcAnswer {
  id: number | string;
  [field: string]: unknown;
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

  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const upstream = await fetch(targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: upstream.status, text: await upstream.text() };
  };

  /** geth's answer to a transaction under its minimum tip; null when it passes. */
  const floorRefusal = (call: JsonRpcRequest): JsonRpcAnswer | null => {
    if (minimumTip === null || call.method !== 'eth_sendRawTransaction') return null;
    const tx = Transaction.from(String(call.params[0]));
    const tip = tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
    if (tip >= minimumTip) return null;
    refused += 1;
    const message = `transaction underpriced: gas tip cap ${tip}, minimum needed ${minimumTip}`;
    return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message } };
  };

  const drainSenderOf = async (send: JsonRpcRequest): Promise<void> => {
    const drained = drain!;
    drain = null;
    const sender = Transaction.from(String(send.params[0])).from!;
    const call = { jsonrpc: '2.0', id: 0, method: 'anvil_setBalance', params: [sender, '0x0'] };
    await forward(JSON.stringify(call));
    drained(sender);
  };

  /** The calls under the floor are answered here; the rest go to the chain, in one batch. */
  const answer = async (body: string): Promise<{ status: number; text: string }> => {
    const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    calls.push(...batch.map(({ method, params }) => ({ method, params })));
    const send = batch.find((call) => call.method === 'eth_sendRawTransaction');
    if (drain && send) await drainSenderOf(send);
    if (holdMs > 0 && batch.some((call) => call.method === 'eth_call')) {
      await new Promise((resolve) => setTimeout(resolve, holdMs));
    }
    const refusals = batch.map(floorRefusal);
    if (refusals.every((refusal) => refusal === null)) return forward(body);
    const passed = batch.filter((_, index) => refusals[index] === null);
    const upstream = passed.length
      ? ([JSON.parse((await forward(JSON.stringify(passed))).text)].flat() as JsonRpcAnswer[])
      : [];
    const byId = new Map(upstream.map((reply) => [reply.id, reply]));
    const replies = batch.map((call, index) => refusals[index] ?? byId.get(call.id));
    return { status: 200, text: JSON.stringify(Array.isArray(parsed) ? replies : replies[0]) };
  };

  const server = createServer((request, response) => {
    void (async () => {
      const { status, text } = await answer(await bodyOf(request));
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(text);
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
    refuseTipsBelow: (wei) => {
      minimumTip = wei;
    },
    refusedSends: () => refused,
    drainSenderOnNextSend: () =>
      new Promise<string>((resolve) => {
        drain = resolve;
      }),
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
