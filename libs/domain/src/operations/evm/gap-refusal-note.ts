import { boundedText } from '@app/common';
import type { BroadcastResult } from '@app/chains';

const NODE_WORDS_MAX = 300;

/**
 * For the log of a closed gap: the first re-sent nonce the node did not take, and why (what
 * keeps the gap open); empty when it took them all. `results` are in nonce order from `from`.
 */
export function refusalNote(results: readonly BroadcastResult[], from: bigint): string {
  const index = results.findIndex((result) => result.kind !== 'accepted');
  if (index < 0) return '';
  const result = results[index];
  const why = 'message' in result ? result.message : result.kind;
  return `; the node refused nonce ${from + BigInt(index)}: ${boundedText(why, NODE_WORDS_MAX)}`;
}
