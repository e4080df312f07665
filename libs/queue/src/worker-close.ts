import type { Worker } from 'bullmq';
import { redisDeadline } from './redis-deadline';

/**
 * Closes a BullMQ Worker once its Redis connections are up (waiting at most `readyWithinMs`).
 * BullMQ 5 finishes a connection's handshake (the Redis version check) in the background; a
 * Worker closed before that removes the connection's listeners, and when the connection is then
 * disconnected (the shared one right after, on shutdown) the handshake's "Connection is closed"
 * is re-emitted with no listener left: an uncaught error that ends the process (a worker told to
 * stop right after it took a shard crashed so).
 */
export async function closeWorker(
  worker: Worker,
  force: boolean,
  readyWithinMs: number,
): Promise<void> {
  await redisDeadline(worker.waitUntilReady(), readyWithinMs, 'connect the worker').catch(
    // Redis away: the close below cannot wait for it either.
    () => undefined,
  );
  await worker.close(force);
}
