import type { Job } from 'bullmq';
import type { CheckLater } from '@app/domain';

/**
 * Parks the job of a check that has no verdict yet (see CheckLater): delayed for the check's
 * delay, not counted as an attempt, and promoted at once should its wake fire first (a version
 * of its transaction mined, the confirming height reached). The promotion is best effort: the
 * job may have run already, or Redis be away, and then its delay brings it back.
 */
export async function parkCheck(
  job: Job,
  token: string | undefined,
  check: CheckLater,
): Promise<void> {
  const wake = check.wake;
  try {
    await job.moveToDelayed(Date.now() + check.delayMs, token);
  } catch (error) {
    wake?.cancel();
    throw error;
  }
  if (!wake) return;
  void wake
    .wait(check.delayMs)
    .then((woken) => (woken ? job.promote() : undefined))
    .catch(() => undefined)
    .finally(() => wake.cancel());
}
