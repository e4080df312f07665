import { randomUUID } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { loadConfig, type AppConfig } from '@app/config';
import {
  AccountBacklog,
  OperationQueue,
  ShardLeases,
  operationQueueName,
  queueShardOf,
  redisClient,
  SHARED_REDIS_OPTIONS,
  type QueueJobData,
  type RedisConnection,
} from '@app/queue';
import { startRedisCluster, type OwnRedisCluster } from '@app/localnet';

jest.setTimeout(120_000);

/**
 * The service's Redis side on a real Redis Cluster (REDIS_CLUSTER_NODES), 3 masters with a
 * replica each: every script and pipeline stays within one hash slot (a key of another slot is
 * refused CROSSSLOT), the queues spread over the masters, and a BullMQ worker whose master died
 * under it takes jobs again within seconds of its replica's promotion.
 */

let cluster: OwnRedisCluster;
let config: AppConfig;
let redis: RedisConnection;
const prefix = `cluster-${Date.now()}`;

beforeAll(async () => {
  cluster = await startRedisCluster(3, 1);
  config = loadConfig({ REDIS_CLUSTER_NODES: cluster.nodesEnv, QUEUE_PREFIX: prefix });
  redis = redisClient(config, { maxRetriesPerRequest: 3 });
});

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

it('keeps an account backlog per network, each script and pipeline in one slot', async () => {
  const backlog = new AccountBacklog(redis, prefix);
  const [first, second] = [randomUUID(), randomUUID()];
  await expect(backlog.register('base', 'acct-a', first)).resolves.toEqual({
    pending: 1,
    inFlight: 0,
  });
  await backlog.register('solana', 'acct-b', second);
  await expect(backlog.takeSlot('base', 'acct-a', first, 1, 60_000, 'q')).resolves.toMatchObject({
    taken: true,
  });
  await expect(backlog.takeSlot('base', 'acct-a', second, 1, 60_000, 'q')).resolves.toMatchObject({
    taken: false,
    ahead: 0,
  });
  await expect(backlog.takeSlot('solana', 'acct-b', second, 1, 60_000)).resolves.toMatchObject({
    taken: true,
  });
  // Slots of two networks renewed at once: one pipeline per network's slot.
  await backlog.renewSlots(
    [
      { network: 'base', accountId: 'acct-a', operationId: first },
      { network: 'solana', accountId: 'acct-b', operationId: second },
    ],
    60_000,
  );
  await expect(backlog.depths('base')).resolves.toEqual([
    { accountId: 'acct-a', pending: 1, inFlight: 1 },
  ]);
  await expect(backlog.releaseSlot('base', 'acct-a', first, true)).resolves.toEqual({
    queueName: 'q',
    jobId: second,
  });
  await expect(backlog.prune('base', async () => new Set())).resolves.toBe(0);
  await expect(backlog.depths('base')).resolves.toEqual([]);
});

it('runs the shared client’s commands of several slots in one event-loop turn', async () => {
  // Auto-pipelining grouped a turn's commands by node and then refused the group ("All keys in
  // the pipeline should belong to the same slots allocation group"): a worker's start-up lease
  // calls failed so in a CI run, and the worker exited.
  const shared = redisClient(config, SHARED_REDIS_OPTIONS);
  try {
    const backlog = new AccountBacklog(shared, prefix);
    const leases = new ShardLeases(shared, { prefix, workerId: 'worker-turn', ttlMs: 10_000 });
    const networks = ['base', 'solana', 'ethereum', 'polygon'] as const;
    const settled = await Promise.allSettled(
      networks.flatMap((network) => [
        backlog.register(network, 'acct-turn', randomUUID()),
        backlog.depths(network),
        leases.acquire(network, [7], 1),
      ]),
    );
    const refusals = settled.flatMap((result) =>
      result.status === 'rejected' ? [String(result.reason)] : [],
    );
    expect(refusals).toEqual([]);
    await leases.leave([...networks]);
  } finally {
    shared.disconnect();
  }
});

it('leases shards of several networks, each network in its own slot', async () => {
  const leases = new ShardLeases(redis, { prefix, workerId: 'worker-1', ttlMs: 10_000 });
  const taken = await leases.acquire('base', [0, 1, 2, 3], 2);
  expect(taken.map(({ shard }) => shard)).toEqual([0, 1]);
  const solana = await leases.acquire('solana', [0, 1], 2);
  const held = [
    ...taken.map(({ shard }) => ({ network: 'base' as const, shard })),
    ...solana.map(({ shard }) => ({ network: 'solana' as const, shard })),
  ];
  const renewed = await leases.renew(['base', 'solana'], held);
  expect(renewed.lost).toEqual([]);
  expect(renewed.live.get('solana')).toEqual({ count: 1, rank: 0 });
  await expect(leases.release({ network: 'base', shard: 0 })).resolves.toBe(true);
  await leases.leave(['base', 'solana']);
});

it('spreads the operation queues over the masters, and marks each kept in its own slot', async () => {
  const names = [0, 1, 2, 3].map((shard) => operationQueueName('base', shard));
  // A queue's keys all hash to its name's slot; the shards of one network use several masters.
  expect(
    await cluster.mastersServing(names.map((name) => `${prefix}:${name}:wait`)),
  ).toBeGreaterThan(1);

  const queue = new OperationQueue(config);
  try {
    await expect(queue.jobsKept()).resolves.toBe(false);
    await queue.markJobsKept();
    await expect(queue.jobsKept()).resolves.toBe(true);
  } finally {
    await queue.onApplicationShutdown();
  }
});

it('takes jobs again within seconds after the master of its queue dies', async () => {
  const signer = 'FailoverSigner1111111111111111111111111111';
  const name = operationQueueName('base', queueShardOf(signer, config.queue.shards));
  const producer = new OperationQueue(config);
  const consumerConnection = redisClient(config, { maxRetriesPerRequest: null });
  const done: string[] = [];
  const worker = new Worker<QueueJobData>(
    name,
    async (job: Job<QueueJobData>) => {
      done.push(job.id ?? '');
    },
    { connection: consumerConnection, prefix },
  );
  worker.on('error', () => undefined);
  const enqueue = async () => {
    const id = randomUUID();
    await producer.enqueue({ id, network: 'base', accountId: 'acct-f', signer });
    return id;
  };
  const processed = async (id: string, withinMs: number) => {
    for (const deadline = Date.now() + withinMs; !done.includes(id);) {
      if (Date.now() > deadline) throw new Error(`job ${id} not taken within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    await processed(await enqueue(), 10_000);

    const before = await cluster.masterOf(`${prefix}:${name}:wait`);
    const promoted = await cluster.killMasterOf(`${prefix}:${name}:wait`);
    expect(promoted).not.toBe(before);

    const started = Date.now();
    await processed(await enqueue(), 15_000);
    expect(Date.now() - started).toBeLessThan(15_000);
  } finally {
    await worker.close(true);
    await producer.onApplicationShutdown();
    consumerConnection.disconnect();
  }
});
