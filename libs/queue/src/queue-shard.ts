/**
 * The shard of a signer's queue: FNV-1a (32 bits) of its address, lower-cased (an EVM address
 * may come checksummed or not), modulo the shard count. Stable across processes and releases,
 * so the API and every worker agree on where a wallet's operations go.
 */
export function queueShardOf(signer: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`Bad shard count ${shards}`);
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(signer.toLowerCase(), 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}
