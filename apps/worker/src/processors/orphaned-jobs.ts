import { Queue } from 'bullmq';
import type { RedisConnection } from '@app/queue';

/**
 * Puts the jobs a dead worker left active on a queue back to wait, so they run again now
 * instead of when their locks lapse (JOB_LOCK_MS, then a stalled-jobs check), and promotes its
 * delayed ones: the wakes of its parked checks (a version mined, a height reached) lived in the
 * dead worker, so they would wait out their whole delay. Only for a queue whose lease this
 * worker has just taken from a worker that died holding it, before this worker consumes it: no
 * live worker runs those jobs. Returns how many active jobs were put back.
 */
export async function requeueOrphanedJobs(
  queueName: string,
  connection: RedisConnection,
  prefix: string,
): Promise<number> {
  // A Queue over a connection it is given leaves that connection open when closed.
  const queue = new Queue(queueName, { connection, prefix });
  try {
    let requeued = 0;
    for (const job of await queue.getJobs(['active'])) {
      // Without a lock token: the dead worker's lock may not have lapsed yet.
      const moved = await job.moveToWait().then(
        () => true,
        () => false, // settled or moved meanwhile
      );
      if (moved) requeued += 1;
    }
    // A job delayed for its account's share or its wallet's funds runs a round early: harmless.
    await queue.promoteJobs();
    return requeued;
  } finally {
    await queue.close();
  }
}
