import Redis from 'ioredis';
import { Worker } from 'bullmq';
import { closeWorker } from '@app/queue';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAUSE_MS = 300;

/**
 * A worker process stopped right after it took a shard (SIGTERM during a rolling restart) closes
 * the shard's BullMQ Worker, then the Redis connection its Workers share, within milliseconds.
 * Neither may end in an uncaught error: one crashed such a worker. Redis holds its answers for a
 * moment (CLIENT PAUSE) so that the Worker's connections are still in their handshake.
 */
describe('closing a worker that is still connecting', () => {
  const admin = new Redis(REDIS_URL);
  const escaped: unknown[] = [];
  const record = (error: unknown) => escaped.push(error);

  beforeAll(() => {
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
  });

  afterAll(async () => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
    await admin.call('CLIENT', 'UNPAUSE');
    admin.disconnect();
  });

  it('closes it, then its shared connection, without an uncaught error', async () => {
    const shared = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    await shared.ping();
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
    const worker = new Worker('q', async () => undefined, {
      connection: shared,
      prefix: `worker-close-${Date.now()}`,
    });
    worker.on('error', () => undefined);

    await closeWorker(worker, false, 5_000);
    shared.disconnect();

    // An error re-emitted by a connection's handshake surfaces once Redis answers again.
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS + 200));
    expect(worker.closing).toBeTruthy();
    expect(escaped.map(String)).toEqual([]);
  });
});
