import { createServer, type IncomingMessage } from 'node:http';
import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { solanaMessageFacts } from './chain-reads';

/** A `sendTransaction` as the dropper sees it. */
export interface SolanaSend {
  signature: string;
  /** Micro-lamports per compute unit; null without a SetComputeUnitPrice. */
  computeUnitPrice: number | null;
  /** How many sends of this signature came before this one (0: its first). */
  earlierSends: number;
  /** The accounts its message names (static keys), fee payer first. */
  accountKeys: string[];
}

/** Which sends vanish; null lets every send through. */
export type DropRule = (send: SolanaSend) => boolean;

/**
 * A JSON-RPC proxy in front of the Solana localnet that can drop sent transactions the way a
 * real cluster does: the node answers `sendTransaction` with the signature, as it would, but the
 * transaction never reaches a leader, so it never lands (the leader was congested, or it
 * ignored a price under what its block asked). Every other call goes through unchanged.
 */
export interface SolanaSendDropper {
  readonly url: string;
  /** The rule applied to each send from now on (null: none dropped). */
  drop(rule: DropRule | null): void;
  /** The distinct signatures it dropped at least once. */
  droppedSignatures(): Set<string>;
  /** How many sends it dropped. */
  droppedSends(): number;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown[];
}

export async function startSolanaSendDropper(
  targetUrl: string,
  port = 0,
): Promise<SolanaSendDropper> {
  let rule: DropRule | null = null;
  const sendsOf = new Map<string, number>();
  const dropped = new Set<string>();
  let droppedSends = 0;

  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const upstream = await fetch(targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: upstream.status, text: await upstream.text() };
  };

  /** The answer a node gives a send it accepted, when this one is dropped; null to forward. */
  const dropping = (call: JsonRpcRequest): object | null => {
    if (call.method !== 'sendTransaction') return null;
    const [encoded, config] = (call.params ?? []) as [string, { encoding?: string } | undefined];
    const bytes =
      config?.encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded);
    const tx = VersionedTransaction.deserialize(bytes);
    const signature = bs58.encode(tx.signatures[0]);
    const earlierSends = sendsOf.get(signature) ?? 0;
    sendsOf.set(signature, earlierSends + 1);
    const send = {
      signature,
      computeUnitPrice: solanaMessageFacts(tx.message).computeUnitPrice,
      earlierSends,
      accountKeys: tx.message.staticAccountKeys.map((key) => key.toBase58()),
    };
    if (!rule?.(send)) return null;
    dropped.add(signature);
    droppedSends += 1;
    return { jsonrpc: '2.0', id: call.id, result: signature };
  };

  const answer = async (body: string): Promise<{ status: number; text: string }> => {
    const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    const drops = batch.map(dropping);
    if (drops.every((drop) => drop === null)) return forward(body);
    const passed = batch.filter((_, index) => drops[index] === null);
    const upstream = passed.length
      ? ([JSON.parse((await forward(JSON.stringify(passed))).text)].flat() as JsonRpcRequest[])
      : [];
    const byId = new Map(upstream.map((reply) => [reply.id, reply]));
    const replies = batch.map((call, index) => drops[index] ?? byId.get(call.id));
    return { status: 200, text: JSON.stringify(Array.isArray(parsed) ? replies : replies[0]) };
  };

  const server = createServer((request, response) => {
    void (async () => {
      const { status, text } = await answer(await bodyOf(request));
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(text);
    })().catch(() => response.destroy());
  });
  // As the localnet's own server: the service keeps its connections open between calls, and a
  // socket closed under it for idleness would look like an RPC fault.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${bound}`,
    drop: (next) => {
      rule = next;
    },
    droppedSignatures: () => new Set(dropped),
    droppedSends: () => droppedSends,
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
