import { Job, type Worker } from 'bullmq';
import type { LineEntry } from '@app/queue';

/** Jobs of a line tried at most per freed slot (those not waiting any more are skipped). */
const TRIES = 4;
/** The name of a job handle made to promote it (never stored: the job keeps its own name). */
const HANDLE_NAME = 'line-handover';

/**
 * Hands a freed in-flight slot to the job first in its account's line: that job sat delayed for
 * want of a slot, and is brought back to the queue now (promoted) rather than at the end of its
 * delay. An entry whose job is not delayed any more (it ran when its delay ended, it is gone, or
 * it is still on its way into the delayed set) is skipped for the next; a job this process does
 * not consume the shard of, and one missed in a race, come back at the end of their delay.
 */
export async function handOverSlot(
  first: LineEntry | null,
  next: () => Promise<LineEntry | null>,
  workerOf: (queueName: string) => Worker | undefined,
): Promise<boolean> {
  let entry = first;
  for (let tries = 0; entry && tries < TRIES; tries++) {
    const worker = workerOf(entry.queueName);
    // A handle by id, not the job read back: promoting needs only the id, and refuses a job
    // that is not delayed (or is gone). Reading it back was a round trip and a parse a handover.
    const job = worker ? new Job(worker, HANDLE_NAME, undefined, {}, entry.jobId) : undefined;
    if (job && (await promoted(job))) return true;
    entry = await next();
  }
  return false;
}

async function promoted(job: Job): Promise<boolean> {
  try {
    await job.promote();
    return true;
  } catch {
    return false; // not delayed (any more, or yet)
  }
}
