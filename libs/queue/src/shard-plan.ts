/** The most shards of a network one worker may own: an even split among its live workers. */
export function fairShare(shards: number, liveWorkers: number): number {
  return Math.ceil(shards / Math.max(1, liveWorkers));
}

export interface ShardPlan {
  /** Owned shards to hand back (gracefully: their jobs finish first). */
  release: number[];
  /** How many free shards to try to take. */
  acquire: number;
}

/**
 * One worker's next step on one network. Shards being released still count as held until their
 * lease is gone, so a worker takes no new one while it drains beyond its share. The highest
 * shards are given back first (any choice would do; this one is predictable in the logs).
 */
export function planShards(input: {
  shards: number;
  liveWorkers: number;
  /** Shards this worker holds and consumes. */
  owned: readonly number[];
  /** How many shards this worker is still releasing (draining their jobs). */
  releasing: number;
}): ShardPlan {
  const share = fairShare(input.shards, input.liveWorkers);
  const excess = input.owned.length - share;
  const release = excess > 0 ? [...input.owned].sort((a, b) => b - a).slice(0, excess) : [];
  return { release, acquire: Math.max(0, share - input.owned.length - input.releasing) };
}
