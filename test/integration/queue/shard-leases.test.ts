import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { ConcreteNetwork } from '@app/config';
import { startTcpProxy } from '@app/localnet';
import { ShardLeaseKeeper, ShardLeases, type ShardRef } from '@app/queue';

jest.setTimeout(60_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NETWORKS: ConcreteNetwork[] = ['base', 'solana'];
const SHARDS = 6;
const TTL_MS = 1_500;
/** How long a graceful stop of a shard takes (its running jobs finishing). */
let drainMs = 300;
/** A shard given back is handed over after this even with jobs still running. */
const HAND_OVER_MS = 1_000;

/** Every start and stop of a shard's consumer, by any instance, in order. */
interface Event {
  at: number;
  instance: string;
  shard: string;
  what: 'start' | 'stop';
  graceful?: boolean;
  /** On a start: whether the shard's last holder died holding it. */
  orphaned?: boolean;
}

/**
 * Shard ownership by lease between worker instances on a real Redis: an even split, a rebalance
 * when one joins, leases given back at once on a graceful stop, and a killed instance's shards
 * taken over once its leases lapse. The consumers are stand-ins that record what they were told.
 */
describe('shard leases', () => {
  let prefix: string;
  let events: Event[];
  /** Consumers running now, by shard: more than one at a time would be two workers on a wallet. */
  let running: Map<string, Set<string>>;
  let overlaps: string[];
  let instances: Instance[];
  const admin = new Redis(REDIS_URL);

  interface Instance {
    name: string;
    id: string;
    redis: Redis;
    keeper: ShardLeaseKeeper;
    consuming: Set<string>;
  }

  beforeEach(() => {
    drainMs = 300;
    prefix = `ais-leases-${randomBytes(4).toString('hex')}`;
    events = [];
    running = new Map();
    overlaps = [];
    instances = [];
  });

  afterEach(async () => {
    await Promise.all(instances.map((instance) => instance.keeper.stop().catch(() => undefined)));
    for (const instance of instances) instance.redis.disconnect();
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length) await admin.del(...keys);
  });

  afterAll(async () => {
    await admin.quit();
  });

  const label = ({ network, shard }: ShardRef) => `${network}:${shard}`;

  async function startInstance(
    name: string,
    ttlMs = TTL_MS,
    replica?: string,
    redisUrl = REDIS_URL,
  ): Promise<Instance> {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    const id = `${replica ? `${replica}@` : ''}${name}-${randomBytes(3).toString('hex')}`;
    const consuming = new Set<string>();
    const keeper = new ShardLeaseKeeper(
      new ShardLeases(redis, { prefix, workerId: id, ttlMs, replica }),
      { networks: NETWORKS, shards: SHARDS, ttlMs, handOverAfterMs: HAND_OVER_MS },
      {
        start: (ref, orphaned) => {
          const shard = label(ref);
          consuming.add(shard);
          events.push({ at: Date.now(), instance: name, shard, what: 'start', orphaned });
          const owners = running.get(shard) ?? new Set();
          owners.add(name);
          running.set(shard, owners);
          if (owners.size > 1) overlaps.push(`${shard}: ${[...owners].join(', ')}`);
        },
        stop: async (ref, graceful) => {
          const shard = label(ref);
          if (!consuming.delete(shard)) return;
          if (graceful) await new Promise((resolve) => setTimeout(resolve, drainMs));
          running.get(shard)?.delete(name);
          events.push({ at: Date.now(), instance: name, shard, what: 'stop', graceful });
        },
      },
      { log: () => undefined, warn: () => undefined },
    );
    const instance = { name, id, redis, keeper, consuming };
    instances.push(instance);
    await keeper.start();
    return instance;
  }

  /** The lease holder of every shard, read from Redis. */
  async function leaseOwners(): Promise<Map<string, string | null>> {
    const shards = NETWORKS.flatMap((network) =>
      Array.from({ length: SHARDS }, (_, shard) => ({ network, shard })),
    );
    const values = await admin.mget(
      ...shards.map(({ network, shard }) => `${prefix}:lease:{${network}}:${shard}`),
    );
    return new Map(shards.map((ref, i) => [label(ref), values[i]]));
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Each shard `to` started, with the stop by `from` that gave it back (if any). */
  function handOvers(from: string, to: string): { given?: Event; taken: Event }[] {
    return events
      .filter((event) => event.instance === to && event.what === 'start')
      .map((taken) => ({
        taken,
        given: events.find(
          (event) =>
            event.instance === from && event.what === 'stop' && event.shard === taken.shard,
        ),
      }));
  }

  /** Each instance consumes `share` shards of each network, and holds exactly their leases. */
  async function evenlySplit(members: Instance[], share: number): Promise<boolean> {
    const owners = await leaseOwners();
    return members.every((instance) =>
      NETWORKS.every((network) => {
        const mine = instance.keeper.owned(network);
        return (
          mine.length === share &&
          mine.every((shard) => owners.get(label({ network, shard })) === instance.id) &&
          [...instance.consuming].filter((shard) => shard.startsWith(`${network}:`)).length ===
            share
        );
      }),
    );
  }

  it('starts when Redis fails its first round, and takes its shards once Redis answers', async () => {
    const proxy = await startTcpProxy(REDIS_URL);
    try {
      proxy.cut();
      const a = await startInstance('a', TTL_MS, undefined, proxy.url);
      expect(a.keeper.owned('base')).toEqual([]);
      proxy.restore();
      await until('a owning every shard', () => evenlySplit([a], SHARDS));
    } finally {
      await proxy.close();
    }
  });

  it('splits the shards evenly between three instances, one consumer per shard', async () => {
    await Promise.all(['a', 'b', 'c'].map((name) => startInstance(name)));
    await until('an even split', () => evenlySplit(instances, SHARDS / 3));
    const owners = await leaseOwners();
    expect(new Set(owners.values())).toEqual(new Set(instances.map((instance) => instance.id)));
    expect(overlaps).toEqual([]);
  });

  it('rebalances when an instance joins: extras are given back after their jobs finished', async () => {
    const a = await startInstance('a');
    expect(a.keeper.owned('base')).toHaveLength(SHARDS);
    expect(a.keeper.owned('solana')).toHaveLength(SHARDS);

    const b = await startInstance('b');
    await until('a split in halves', () => evenlySplit([a, b], SHARDS / 2));
    // Each shard b took was stopped by a first (gracefully, after its drain), then started by b.
    const moves = handOvers('a', 'b');
    expect(moves).toHaveLength(SHARDS);
    for (const { given, taken } of moves) {
      expect(given).toMatchObject({ graceful: true });
      expect(given!.at).toBeLessThanOrEqual(taken.at);
    }
    expect(overlaps).toEqual([]);
  });

  it('a newcomer takes each given-back shard soon after it is free, not at its next round', async () => {
    const ttlMs = 6_000; // rounds 2 s apart
    const a = await startInstance('a', ttlMs);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const b = await startInstance('b', ttlMs);
    // a sees b at its next round and gives half back (a 300 ms drain); b's own next round comes
    // 2 s after its first, about 1.8 s after the shards are free.
    await until('a split in halves', () => evenlySplit([a, b], SHARDS / 2));
    const moves = handOvers('a', 'b');
    expect(moves).toHaveLength(SHARDS);
    for (const { given, taken } of moves) expect(taken.at - given!.at).toBeLessThan(600);
    expect(overlaps).toEqual([]);
  });

  it('hands a given-back shard over within the hand-over time while its jobs still run', async () => {
    drainMs = 4_000;
    const a = await startInstance('a');
    const joined = Date.now();
    const b = await startInstance('b');
    await until('a split in halves', () => evenlySplit([a, b], SHARDS / 2));
    // b consumes its half long before a's jobs there have finished (they finish at a).
    expect(Date.now() - joined).toBeLessThan(drainMs - 1_000);
    const taken = events.filter((event) => event.instance === 'b' && event.what === 'start');
    expect(taken).toHaveLength(SHARDS);
    expect(events.filter((event) => event.what === 'stop')).toEqual([]);

    // A graceful stop of a still waits for the jobs of the shards it handed over.
    await a.keeper.stop();
    for (const start of taken) {
      expect(events).toContainEqual(
        expect.objectContaining({
          instance: 'a',
          shard: start.shard,
          what: 'stop',
          graceful: true,
        }),
      );
    }
  });

  it('gives its leases back on a graceful stop: the others take them at their next renewal', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')]);
    await until('a split in halves', () => evenlySplit([a, b], SHARDS / 2));

    await a.keeper.stop();
    const stoppedAt = Date.now();
    const owners = await leaseOwners();
    expect([...owners.values()]).not.toContain(a.id);
    expect(await admin.zscore(`${prefix}:workers:{base}`, a.id)).toBeNull();
    expect(a.consuming.size).toBe(0);

    await until('b owning every shard', () => evenlySplit([b], SHARDS));
    // Not the lease time: b's next renewal (a third of it), plus scheduling slack.
    expect(Date.now() - stoppedAt).toBeLessThan(TTL_MS / 3 + 700);
    expect(overlaps).toEqual([]);
  });

  it("takes a killed instance's shards once its leases lapse, within the lease time", async () => {
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((name) => startInstance(name)));
    await until('an even split', () => evenlySplit([a, b, c], SHARDS / 3));
    const cShards = await leaseOwners().then((owners) =>
      [...owners].filter(([, owner]) => owner === c.id).map(([shard]) => shard),
    );
    expect(cShards).toHaveLength((SHARDS / 3) * NETWORKS.length);

    // As a SIGKILL: the process's Redis connection is gone; it renews nothing, releases nothing.
    await c.redis.quit();
    const killedAt = Date.now();
    await until('a and b owning every shard', () => evenlySplit([a, b], SHARDS / 2));
    const takenAfter = Date.now() - killedAt;
    // Its last renewal was at most a third of the lease time before the kill, so the leases
    // lapse no sooner than two thirds of it after; the others look every third of it.
    expect(takenAfter).toBeGreaterThanOrEqual((TTL_MS * 2) / 3 - 50);
    expect(takenAfter).toBeLessThan(TTL_MS + TTL_MS / 3 + 700);
    // Taken from a dead holder: its consumers are told so (its running jobs are orphans).
    const takenOver = events.filter((event) => event.what === 'start' && event.at >= killedAt);
    expect(takenOver.map((event) => event.shard).sort()).toEqual([...cShards].sort());
    expect(takenOver.every((event) => event.orphaned === true)).toBe(true);
  });

  it("gives a restarted replica its dead predecessor's shards at once, and no other replica's", async () => {
    // Leases of 20 s: without the replica's name, its shards would stand still that long.
    const ttlMs = 20_000;
    const a = await startInstance('a', ttlMs, 'replica-1');
    const b = await startInstance('b', ttlMs, 'replica-10');
    await until('an even split', () => evenlySplit([a, b], SHARDS / 2));
    const ownedBy = async (instance: Instance) =>
      [...(await leaseOwners())].filter(([, owner]) => owner === instance.id).map(([s]) => s);
    const [aShards, bShards] = [await ownedBy(a), await ownedBy(b)];

    await a.redis.quit(); // as a SIGKILL
    const restartedAt = Date.now();
    const again = await startInstance('a-again', ttlMs, 'replica-1');
    await until('the restart owning its predecessor shards', () =>
      evenlySplit([again, b], SHARDS / 2),
    );
    expect(Date.now() - restartedAt).toBeLessThan(2_000);
    expect((await ownedBy(again)).sort()).toEqual(aShards.sort());
    expect((await ownedBy(b)).sort()).toEqual(bShards.sort());
    const taken = events.filter((event) => event.instance === 'a-again' && event.what === 'start');
    expect(taken.every((event) => event.orphaned === true)).toBe(true);
    // The dead instance's stand-in consumers were never stopped; the live ones never overlap.
    expect(overlaps.filter((overlap) => !overlap.endsWith(': a, a-again'))).toEqual([]);
  });

  it('tells no orphans of shards given back by a live instance, nor of shards never held', async () => {
    const a = await startInstance('a');
    await until('a owning every shard', () => evenlySplit([a], SHARDS));
    const b = await startInstance('b');
    await until('a split in halves', () => evenlySplit([a, b], SHARDS / 2));
    const starts = events.filter((event) => event.what === 'start');
    expect(starts).toHaveLength(SHARDS * NETWORKS.length * 1.5);
    expect(starts.filter((event) => event.orphaned)).toEqual([]);
  });

  it("keeps its shards through a Redis flush: no instance takes the others' meanwhile", async () => {
    // A long lease: the rounds below are the test's, in the order it chooses, not the timers'.
    const [a, b] = await Promise.all([startInstance('a', 60_000), startInstance('b', 60_000)]);
    await until('a split in halves', async () => {
      await a.keeper.renewNow();
      await b.keeper.renewNow();
      return evenlySplit([a, b], SHARDS / 2);
    });
    const before = NETWORKS.map((network) => [a.keeper.owned(network), b.keeper.owned(network)]);
    const stopsBefore = events.filter((event) => event.what === 'stop').length;

    const keys = await admin.keys(`${prefix}:*`);
    await admin.del(...keys);
    // a notices first and finds itself alone in the live sets, b's leases free: it must not
    // take them before b has had a round to come back.
    for (let round = 0; round < 3; round++) {
      await a.keeper.renewNow();
      await b.keeper.renewNow();
    }

    expect(NETWORKS.map((network) => [a.keeper.owned(network), b.keeper.owned(network)])).toEqual(
      before,
    );
    expect(await evenlySplit([a, b], SHARDS / 2)).toBe(true);
    expect(events.filter((event) => event.what === 'stop')).toHaveLength(stopsBefore);
  });

  it('stops consuming at once a shard whose lease another worker holds, and re-takes its leases after a flush', async () => {
    const a = await startInstance('a');
    const stolen = { network: 'base' as const, shard: a.keeper.owned('base')[0] };
    await admin.set(`${prefix}:lease:{base}:${stolen.shard}`, 'someone-else', 'PX', 60_000);
    await a.keeper.renewNow();
    expect(a.keeper.owned('base')).not.toContain(stolen.shard);
    expect(events.at(-1)).toMatchObject({ shard: label(stolen), what: 'stop', graceful: false });

    // Redis emptied under it: its leases and its place in the live sets come back.
    const keys = await admin.keys(`${prefix}:*`);
    await admin.del(...keys);
    await a.keeper.renewNow();
    const owners = await leaseOwners();
    for (const network of NETWORKS) {
      for (const shard of a.keeper.owned(network)) {
        expect(owners.get(label({ network, shard }))).toBe(a.id);
      }
    }
    expect(await admin.zscore(`${prefix}:workers:{solana}`, a.id)).not.toBeNull();
  });
});
