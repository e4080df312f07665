import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { handOverSlot } from '../../../apps/worker/src/processors/slot-handover';

jest.setTimeout(30_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const QUEUE = '{operations-base-0}';

/**
 * A freed slot goes to the first job in its account's line that still waits for one: delayed
 * jobs are brought back to the queue at once, and entries whose job is not delayed any more are
 * skipped for the next.
 */
describe('handing a freed slot over', () => {
  let connection: Redis;
  let queue: Queue;
  let worker: Worker;

  beforeEach(async () => {
    connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const prefix = `handover-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    queue = new Queue(QUEUE, { connection, prefix });
    // Never run: it only gives handOverSlot a queue to find the jobs on.
    worker = new Worker(QUEUE, async () => undefined, { connection, prefix, autorun: false });
    await queue.waitUntilReady();
  });

  afterEach(async () => {
    await worker.close();
    await queue.close();
    connection.disconnect();
  });

  const delayed = (id: string) => queue.add('execute', {}, { jobId: id, delay: 60_000 });
  const entry = (jobId: string, queueName = QUEUE) => ({ queueName, jobId });

  it('brings the first delayed job of the line back to the queue', async () => {
    await delayed('a3');
    await delayed('a4');
    const next = jest.fn();

    expect(await handOverSlot(entry('a3'), next, () => worker)).toBe(true);

    expect(await queue.getJobState('a3')).toBe('waiting');
    expect(await queue.getJobState('a4')).toBe('delayed');
    expect(next).not.toHaveBeenCalled();
  });

  it('skips entries whose job is gone, waiting already, or on a shard it does not consume', async () => {
    await queue.add('execute', {}, { jobId: 'a2' }); // came back by its delay
    await delayed('a5');
    const line = [entry('a2'), entry('a9', '{operations-base-1}'), entry('a5')];

    expect(
      await handOverSlot(
        entry('gone'),
        async () => line.shift() ?? null,
        (name) => (name === QUEUE ? worker : undefined),
      ),
    ).toBe(true);

    expect(line).toEqual([]);
    expect(await queue.getJobState('a5')).toBe('waiting');
  });

  it('gives up after a few entries that cannot come', async () => {
    const next = jest.fn(async () => entry('gone'));
    expect(await handOverSlot(entry('gone'), next, () => worker)).toBe(false);
    expect(next).toHaveBeenCalledTimes(4);
  });
});
