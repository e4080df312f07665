/**
 * The shards of a network one worker owns: an even split among its live workers, the remainder
 * going to the first by id (4 shards, 3 workers: 2, 1, 1), so the shares add up to every shard.
 */
export function fairShare(shards: number, liveWorkers: number, rank: number): number {
  const workers = Math.max(1, liveWorkers);
  return Math.floor(shards / workers) + (rank < shards % workers ? 1 : 0);
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
  /** This worker's place among them, by id (from 0). */
  rank: number;
  /** Shards this worker holds and consumes. */
  owned: readonly number[];
  /** How many shards this worker is still releasing (draining their jobs). */
  releasing: number;
}): ShardPlan {
  const share = fairShare(input.shards, input.liveWorkers, input.rank);
  const excess = input.owned.length - share;
  const release = excess > 0 ? [...input.owned].sort((a, b) => b - a).slice(0, excess) : [];
  return { release, acquire: Math.max(0, share - input.owned.length - input.releasing) };
}
