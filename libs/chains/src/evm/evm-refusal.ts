/** What the node said to a signed transaction. */
export type BroadcastResult =
  | { kind: 'accepted' }
  /** The wallet's nonce is past this transaction's, or its pool holds another version of it. */
  | { kind: 'nonce-used' }
  /**
   * Priced under what the node takes now: a tip under its minimum (`minimumTip` when it said
   * how much), a fee cap under the block's base fee, or a pool full of better-paying ones.
   * The same transaction at higher fees would be taken.
   */
  | { kind: 'underpriced'; message: string; minimumTip?: bigint }
  /** Refused for good (e.g. no funds for gas): it will never land as it is. */
  | { kind: 'rejected'; message: string };

/** geth (and bor, Polygon's fork) naming the tip it asks: "... minimum needed 25000000000". */
const MINIMUM_TIP = /minimum needed (\d+)/i;

/**
 * Reads a node's refusal of `eth_sendRawTransaction` (geth's and anvil's words; other clients
 * mostly reuse geth's).
 */
export function classifyRefusal(message: string): BroadcastResult {
  const text = message.toLowerCase();
  if (
    text.includes('already known') ||
    text.includes('known transaction') ||
    text.includes('already imported')
  ) {
    return { kind: 'accepted' };
  }
  if (text.includes('nonce too low') || text.includes('replacement transaction underpriced')) {
    return { kind: 'nonce-used' };
  }
  if (text.includes('underpriced') || text.includes('less than block base fee')) {
    const minimum = MINIMUM_TIP.exec(message)?.[1];
    return minimum === undefined
      ? { kind: 'underpriced', message }
      : { kind: 'underpriced', message, minimumTip: BigInt(minimum) };
  }
  return { kind: 'rejected', message };
}
