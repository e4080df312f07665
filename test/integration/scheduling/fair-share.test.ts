import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import {
  AccountBacklog,
  OperationQueue,
  operationQueueName,
  type OperationJobData,
} from '@app/queue';

jest.setTimeout(60_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A fresh queue prefix per test (nothing shared with other suites or tests), and one shard, so
 * that every wallet's jobs meet on one queue.
 */
function setUp(env: Record<string, string> = {}) {
  const prefix = `fair-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const config = loadConfig({ REDIS_URL, QUEUE_PREFIX: prefix, QUEUE_SHARDS: '1', ...env });
  return { config, prefix, queue: new OperationQueue(config) };
}

/** Takes `count` jobs one at a time from base's queue, in the order BullMQ hands them out. */
async function takeInOrder(config: ReturnType<typeof loadConfig>, count: number) {
  const taken: OperationJobData[] = [];
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const worker = new Worker<OperationJobData>(
    operationQueueName('base', 0),
    async (job) => {
      taken.push(job.data);
      if (taken.length === count) done();
    },
    { connection, prefix: config.queue.prefix, concurrency: 1 },
  );
  await finished;
  await worker.close();
  connection.disconnect();
  return taken;
}

const enqueueMany = async (queue: OperationQueue, accountId: string, count: number) => {
  for (let i = 0; i < count; i++) {
    await queue.enqueue({ id: `${accountId}-${i}`, network: 'base', accountId, signer: accountId });
  }
};

describe('fair share between accounts on one queue', () => {
  it("takes B's jobs while A's backlog is pending (not after it)", async () => {
    const { config, queue } = setUp();
    try {
      await enqueueMany(queue, 'A', 200);
      await enqueueMany(queue, 'B', 3);
      const order = await takeInOrder(config, 10);
      const bAt = order.flatMap((job, at) => (job.accountId === 'B' ? [at] : []));
      // Round-robin: A1 B1 A2 B2 A3 B3 ... (B came last, so each of its jobs follows A's).
      expect(bAt).toEqual([1, 3, 5]);
      expect(order[0]).toMatchObject({ accountId: 'A', operationId: 'A-0', network: 'base' });
    } finally {
      await queue.onApplicationShutdown();
    }
  });

  it('gives an account of weight 3 three jobs per round', async () => {
    const { config, queue } = setUp({ ACCOUNT_WEIGHTS: 'A=3' });
    try {
      await enqueueMany(queue, 'A', 60);
      await enqueueMany(queue, 'B', 60);
      const order = await takeInOrder(config, 40);
      const fromA = order.filter((job) => job.accountId === 'A').length;
      expect(fromA).toBe(30);
    } finally {
      await queue.onApplicationShutdown();
    }
  });

  it('puts the jobs of an account far over its cap in its line, not in the queue', async () => {
    const { prefix, queue } = setUp({ ACCOUNT_MAX_IN_FLIGHT: '2' });
    const redis = new Redis(REDIS_URL);
    const backlog = new AccountBacklog(redis, prefix);
    const jobs = queue.networkQueues('base')[0];
    try {
      // Queued while a slot is free, however many are pending.
      await enqueueMany(queue, 'A', 6);
      expect(await jobs.getDelayedCount()).toBe(0);
      // Both slots held: the jobs past two rounds of the cap (5th, 6th) wait in the line.
      await backlog.takeSlot('base', 'A', 'A-0', 2, 10_000);
      await backlog.takeSlot('base', 'A', 'A-1', 2, 10_000);
      for (let i = 6; i < 9; i++) {
        await queue.enqueue({ id: `A-${i}`, network: 'base', accountId: 'A', signer: 'A' });
      }
      expect(await jobs.getJobState('A-6')).toBe('delayed');
      expect(await jobs.getJobState('A-8')).toBe('delayed');
      // Another account is not held up by A's line.
      await queue.enqueue({ id: 'B-0', network: 'base', accountId: 'B', signer: 'A' });
      expect(await jobs.getJobState('B-0')).toBe('prioritized');
      // A freed slot hands out the line's first.
      expect(await backlog.releaseSlot('base', 'A', 'A-0', true)).toEqual({
        queueName: jobs.name,
        jobId: 'A-6',
      });

      // Queued together (a packed airdrop's carriers), each counts those ahead of it: past the
      // cap's worth, C's jobs go to the line although none of its slots is held yet.
      const carriers = Array.from({ length: 8 }, (_, i) => `C-${i}`);
      await Promise.all(
        carriers.map((id, ahead) =>
          queue.enqueue({ id, network: 'base', accountId: 'C', signer: 'A' }, ahead),
        ),
      );
      const states = await Promise.all(carriers.map((id) => jobs.getJobState(id)));
      expect(states.filter((state) => state === 'delayed')).toHaveLength(6);
    } finally {
      redis.disconnect();
      await queue.onApplicationShutdown();
    }
  });

  it('counts an operation enqueued twice (a reconciler re-enqueue) once', async () => {
    const { config, prefix, queue } = setUp();
    const redis = new Redis(REDIS_URL);
    try {
      await enqueueMany(queue, 'A', 3);
      await queue.enqueue({ id: 'A-0', network: 'base', accountId: 'A', signer: 'A' });
      const backlog = new AccountBacklog(redis, prefix);
      expect(await backlog.depths('base')).toEqual([{ accountId: 'A', pending: 3, inFlight: 0 }]);
      expect(await queue.networkQueues('base')[0].count()).toBe(3);
      expect(config.queue.prefix).toBe(prefix);
    } finally {
      redis.disconnect();
      await queue.onApplicationShutdown();
    }
  });
});

describe('in-flight slots per account', () => {
  let redis: Redis;
  let backlog: AccountBacklog;

  beforeEach(() => {
    redis = new Redis(REDIS_URL);
    backlog = new AccountBacklog(redis, `slots-${Date.now()}-${Math.random()}`);
  });

  afterEach(() => redis.disconnect());

  it('lets `cap` operations of an account run, across workers, and no more', async () => {
    for (const id of ['a1', 'a2', 'a3']) await backlog.register('base', 'A', id);
    const take = (id: string, account = 'A') => backlog.takeSlot('base', account, id, 2, 10_000);
    expect(await take('a1')).toEqual({ taken: true, pending: 3, ahead: 0 });
    expect(await take('a2')).toMatchObject({ taken: true });
    expect(await take('a3')).toEqual({ taken: false, pending: 3, ahead: 0 });
    // One already holding a slot keeps it (its job run again); another account is not held up.
    expect(await take('a1')).toMatchObject({ taken: true });
    expect(await take('b1', 'B')).toMatchObject({ taken: true });

    await backlog.releaseSlot('base', 'A', 'a1', true);
    expect(await take('a3')).toMatchObject({ taken: true, pending: 2 });
    expect(await backlog.depths('base')).toEqual(
      expect.arrayContaining([{ accountId: 'A', pending: 2, inFlight: 2 }]),
    );
  });

  it('lines up the jobs left without a slot, and hands each freed slot to the first', async () => {
    const queue = '{operations-base-0}';
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) await backlog.register('base', 'A', id);
    const take = (id: string) => backlog.takeSlot('base', 'A', id, 2, 10_000, queue);
    await take('a1');
    await take('a2');
    expect(await take('a3')).toEqual({ taken: false, pending: 5, ahead: 0 });
    expect(await take('a4')).toMatchObject({ taken: false, ahead: 1 });
    expect(await take('a5')).toMatchObject({ taken: false, ahead: 2 });
    // Put back and fetched again before its turn: it keeps its place.
    expect(await take('a3')).toMatchObject({ taken: false, ahead: 0 });

    // Each freed slot hands out the first in line, taken off it.
    expect(await backlog.releaseSlot('base', 'A', 'a1', true)).toEqual({
      queueName: queue,
      jobId: 'a3',
    });
    expect(await take('a3')).toMatchObject({ taken: true });
    // One that takes a slot (it came back by its delay) leaves the line.
    await backlog.releaseSlot('base', 'A', 'a2', true);
    expect(await take('a5')).toMatchObject({ taken: true });
    expect(await backlog.releaseSlot('base', 'A', 'a3', true)).toBeNull();
    expect(await backlog.nextInLine('base', 'A')).toBeNull();

    // Without a queue named, a job is refused a slot but not lined up (an older caller).
    await backlog.takeSlot('base', 'A', 'a3', 2, 10_000, queue);
    expect(await backlog.takeSlot('base', 'A', 'a6', 2, 10_000)).toMatchObject({ taken: false });
    expect(await backlog.nextInLine('base', 'A')).toBeNull();
  });

  it('forgets the line of an idle account', async () => {
    const queue = '{operations-base-0}';
    await backlog.register('base', 'A', 'a1');
    await backlog.takeSlot('base', 'A', 'other', 1, 10_000, queue);
    await backlog.takeSlot('base', 'A', 'a1', 1, 10_000, queue);
    await backlog.prune('base', async () => new Set());
    expect(await backlog.nextInLine('base', 'A')).toBeNull();
  });

  it("frees a killed worker's slot once its hold lapses, and not before a renewal", async () => {
    await backlog.takeSlot('base', 'A', 'a1', 1, 300);
    await backlog.renewSlots([{ network: 'base', accountId: 'A', operationId: 'a1' }], 600);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await backlog.takeSlot('base', 'A', 'a2', 1, 300)).toMatchObject({ taken: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await backlog.takeSlot('base', 'A', 'a2', 1, 300)).toMatchObject({ taken: true });
  });

  it('prunes pending operations Postgres says are settled, and forgets an idle account', async () => {
    for (const id of ['a1', 'a2', 'a3']) await backlog.register('base', 'A', id);
    await backlog.register('base', 'B', 'b1');
    const stillUnsettled = new Set(['a2']);
    const pruned = await backlog.prune('base', async (ids) => {
      return new Set(ids.filter((id) => stillUnsettled.has(id)));
    });
    expect(pruned).toBe(3);
    expect(await backlog.depths('base')).toEqual([{ accountId: 'A', pending: 1, inFlight: 0 }]);
  });
});
