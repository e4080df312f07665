import type { Worker } from 'bullmq';
import { redisDeadline } from './redis-deadline';

/**
 * Closes a BullMQ Worker once its Redis connections are up (waiting at most `readyWithinMs`).
 * Closed while its blocking connection is still coming up, BullMQ 5 disconnects it mid-handshake
 * and re-emits the handshake's "Connection is closed" on an emitter whose listeners close() has
 * already removed: an uncaught error that ends the process (a worker told to stop right after
 * it took a shard crashed so).
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
