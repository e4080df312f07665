import type { ConcreteNetwork } from '@app/config';
import type { RedisConnection } from './redis-client';

export interface ShardRef {
  network: ConcreteNetwork;
  shard: number;
}

/** A shard just taken, and whether its last holder died holding it (see ShardLeases.acquire). */
export interface AcquiredShard {
  shard: number;
  orphaned: boolean;
}

/** A network's live workers: how many, and this worker's place among them (by id, from 0). */
export interface LiveWorkers {
  count: number;
  rank: number;
}

/**
 * Registers this worker as live (its score: when it stops counting, by the Redis clock, so hosts
 * need not agree on the time), drops the workers whose time has passed and (ARGV[3], this
 * worker's replica prefix, when set) the dead predecessors of its replica, and counts the rest.
 * Returns { live workers, 1 if this worker was not in the set, this worker's rank by id }.
 */
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local replica = ARGV[3]
if replica ~= '' then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if member ~= ARGV[1] and string.sub(member, 1, #replica) == replica then
      redis.call('ZREM', KEYS[1], member)
    end
  end
end
local added = redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[2]))
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(members)
local rank = 0
for i, member in ipairs(members) do if member == ARGV[1] then rank = i - 1 end end
return { #members, added, rank }`;

/**
 * Compare-and-renew: 1 if the lease is still this worker's, 0 if another holds it, 2 if it was
 * gone (expired while nobody took it, or Redis flushed) and is taken back.
 */
const RENEW = `
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not owner then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return 0`;

/**
 * Takes up to ARGV[3] of the free leases among KEYS[2..n+1], in order, n = ARGV[4]; KEYS[n+2..]
 * are the shards' holder records (who held each last, kept without a TTL) and KEYS[1] the
 * network's live-worker set. With ARGV[5], this worker's replica prefix, a lease held by another
 * process of its replica counts as free: that is its predecessor, dead (one process a replica).
 * Returns, per lease taken, its 1-based position and 1 when its last holder was another worker
 * no longer live, or its predecessor (it died holding it: its running jobs are orphans), else 0
 * (a lease given back by a live worker, or never held).
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(ARGV[4])
local replica = ARGV[5]
local taken = {}
for i = 1, n do
  if #taken >= 2 * tonumber(ARGV[3]) then break end
  local took = redis.call('SET', KEYS[i + 1], ARGV[1], 'NX', 'PX', ARGV[2])
  local predecessor = false
  if not took and replica ~= '' then
    local owner = redis.call('GET', KEYS[i + 1])
    if owner and owner ~= ARGV[1] and string.sub(owner, 1, #replica) == replica then
      redis.call('SET', KEYS[i + 1], ARGV[1], 'PX', ARGV[2])
      took = true
      predecessor = true
    end
  end
  if took then
    local holder = KEYS[n + i + 1]
    local last = redis.call('GET', holder)
    local orphaned = 0
    if predecessor then orphaned = 1 end
    if last and last ~= ARGV[1] and not predecessor then
      local liveUntil = redis.call('ZSCORE', KEYS[1], last)
      if not liveUntil or tonumber(liveUntil) <= now then orphaned = 1 end
    end
    redis.call('SET', holder, ARGV[1])
    taken[#taken + 1] = i
    taken[#taken + 1] = orphaned
  end
end
return taken`;

/** Compare-and-delete: a lease another worker has taken meanwhile is left alone. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type LeaseCommands = {
  shardHeartbeat(
    key: string,
    workerId: string,
    ttlMs: number,
    replica: string,
  ): Promise<[number, number]>;
  shardRenew(key: string, workerId: string, ttlMs: number): Promise<number>;
  shardAcquire(...args: (string | number)[]): Promise<number[]>;
  shardRelease(key: string, workerId: string): Promise<number>;
};

/**
 * The Redis side of shard ownership: a live-worker set per network (expiring scores) and one
 * lease key per shard, `<prefix>:lease:{<network>}:<shard>` = worker id, with a TTL. Every write
 * is a Lua script, so no worker ever overwrites or deletes another's lease. A network's keys
 * share its hash tag, so a script or pipeline over one network stays in one Redis Cluster slot.
 */
export class ShardLeases {
  private readonly redis: RedisConnection & LeaseCommands;

  constructor(
    redis: RedisConnection,
    private readonly options: {
      prefix: string;
      workerId: string;
      ttlMs: number;
      /** WORKER_REPLICA: leases held under it by another process are a dead predecessor's. */
      replica?: string;
    },
  ) {
    redis.defineCommand('shardHeartbeat', { numberOfKeys: 1, lua: HEARTBEAT });
    redis.defineCommand('shardRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('shardAcquire', { lua: ACQUIRE });
    redis.defineCommand('shardRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as RedisConnection & LeaseCommands;
  }

  get workerId(): string {
    return this.options.workerId;
  }

  leaseKey({ network, shard }: ShardRef): string {
    return `${this.options.prefix}:lease:{${network}}:${shard}`;
  }

  /** Who held the shard's lease last (no TTL: outlives the lease, to tell a death). */
  holderKey({ network, shard }: ShardRef): string {
    return `${this.options.prefix}:holder:{${network}}:${shard}`;
  }

  /** How this worker's replica begins its ids ('' without one): `<replica>@`. */
  private get replicaPrefix(): string {
    return this.options.replica ? `${this.options.replica}@` : '';
  }

  liveKey(network: ConcreteNetwork): string {
    return `${this.options.prefix}:workers:{${network}}`;
  }

  /**
   * One round trip per network (a network's keys share a Cluster slot): its heartbeat and the
   * renewal of each of its leases held (`held` are of `networks`). Returns the live workers per
   * network (how many, this one included, and this one's rank by id), the leases found in
   * another's hands, and whether Redis had forgotten this worker (a heartbeat or a lease of it
   * gone: a flush, a failover, or this worker silent past its lease).
   */
  async renew(
    networks: readonly ConcreteNetwork[],
    held: readonly ShardRef[],
  ): Promise<{
    live: Map<ConcreteNetwork, LiveWorkers>;
    lost: ShardRef[];
    forgotten: boolean;
  }> {
    const perNetwork = await Promise.all(
      networks.map((network) =>
        this.renewNetwork(
          network,
          held.filter((lease) => lease.network === network),
        ),
      ),
    );
    return {
      live: new Map(perNetwork.map(({ network, live }) => [network, live])),
      lost: perNetwork.flatMap(({ lost }) => lost),
      forgotten: perNetwork.some(({ forgotten }) => forgotten),
    };
  }

  private async renewNetwork(
    network: ConcreteNetwork,
    held: readonly ShardRef[],
  ): Promise<{
    network: ConcreteNetwork;
    live: LiveWorkers;
    lost: ShardRef[];
    forgotten: boolean;
  }> {
    const { workerId, ttlMs } = this.options;
    const pipeline = this.redis.pipeline() as ReturnType<RedisConnection['pipeline']> & {
      shardHeartbeat(key: string, workerId: string, ttlMs: number, replica: string): unknown;
      shardRenew(key: string, workerId: string, ttlMs: number): unknown;
    };
    pipeline.shardHeartbeat(this.liveKey(network), workerId, ttlMs, this.replicaPrefix);
    for (const lease of held) pipeline.shardRenew(this.leaseKey(lease), workerId, ttlMs);
    const replies = (await pipeline.exec()) ?? [];
    for (const [error] of replies) if (error) throw error;
    const [count, added, rank] = (replies[0]?.[1] as number[]).map(Number);
    const renewals = replies.slice(1).map(([, reply]) => Number(reply));
    return {
      network,
      live: { count, rank },
      lost: held.filter((_, i) => renewals[i] === 0),
      forgotten: added === 1 || renewals.some((renewal) => renewal === 2),
    };
  }

  /**
   * Takes up to `count` of the given shards whose lease is free; returns those taken, each with
   * whether its last holder died holding it (`orphaned`: jobs it was running are still marked
   * active under its lapsing locks).
   */
  async acquire(
    network: ConcreteNetwork,
    candidates: number[],
    count: number,
  ): Promise<AcquiredShard[]> {
    if (count <= 0 || candidates.length === 0) return [];
    const refs = candidates.map((shard) => ({ network, shard }));
    const keys = [
      this.liveKey(network),
      ...refs.map((ref) => this.leaseKey(ref)),
      ...refs.map((ref) => this.holderKey(ref)),
    ];
    const reply = await this.redis.shardAcquire(
      keys.length,
      ...keys,
      this.options.workerId,
      this.options.ttlMs,
      count,
      candidates.length,
      this.replicaPrefix,
    );
    const taken: AcquiredShard[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      taken.push({ shard: candidates[reply[i] - 1], orphaned: reply[i + 1] === 1 });
    }
    return taken;
  }

  /** Deletes the lease if it is still this worker's; true if it was. */
  async release(lease: ShardRef): Promise<boolean> {
    return (await this.redis.shardRelease(this.leaseKey(lease), this.options.workerId)) === 1;
  }

  /** Leaves the live sets: the others' shares grow at their next renewal. */
  async leave(networks: readonly ConcreteNetwork[]): Promise<void> {
    await Promise.all(
      networks.map((network) => this.redis.zrem(this.liveKey(network), this.options.workerId)),
    );
  }
}
