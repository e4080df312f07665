import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { solanaMessageFacts } from './chain-reads';
import { startJsonRpcProxy, type JsonRpcAnswer, type JsonRpcRequest } from './json-rpc-proxy';

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

export async function startSolanaSendDropper(
  targetUrl: string,
  port = 0,
): Promise<SolanaSendDropper> {
  let rule: DropRule | null = null;
  const sendsOf = new Map<string, number>();
  const dropped = new Set<string>();
  let droppedSends = 0;

  /** The answer a node gives a send it accepted, when this one is dropped; null to forward. */
  const dropping = (call: JsonRpcRequest): JsonRpcAnswer | null => {
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

  // As the localnet's own server: the service keeps its connections open between calls, and a
  // socket closed under it for idleness would look like an RPC fault.
  const proxy = await startJsonRpcProxy(
    targetUrl,
    { answer: dropping },
    { port, keepAliveTimeoutMs: 60_000 },
  );
  return {
    url: proxy.url,
    drop: (next) => {
      rule = next;
    },
    droppedSignatures: () => new Set(dropped),
    droppedSends: () => droppedSends,
    close: () => proxy.close(),
  };
}
