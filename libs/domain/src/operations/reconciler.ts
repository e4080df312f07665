import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { BatchRepository, OperationRepository, type OperationEntity } from '@app/database';
import { OperationQueue } from '@app/queue';
import { pastDeadline, retriesExhausted } from './operation-deadline';
import { OperationSettler } from './operation-settler';

const BATCH = 500;
/** Batches re-enqueued at once after Redis lost its jobs (any beyond wait RECONCILE_AFTER_MS). */
const MAX_BATCHES_AT_ONCE = 200;

/**
 * Postgres alone decides what exists: operations left unsettled and untouched for a while (their
 * job was lost with Redis, enqueueing failed, attempts ran out) are put on their queue again.
 * The job id is the operation id, so one already queued or running is not doubled. Not forever:
 * a `queued` one past its deadline (OPERATION_DEADLINE_MS) is failed instead.
 */
@Injectable()
export class Reconciler {
  private readonly logger = new Logger(Reconciler.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operations: OperationRepository,
    private readonly batches: BatchRepository,
    private readonly queue: OperationQueue,
    private readonly settler: OperationSettler,
  ) {}

  /**
   * Returns how many operations were re-enqueued. When Redis has lost its jobs (OperationQueue.
   * jobsKept), every unsettled operation is enqueued again at once, not after
   * RECONCILE_AFTER_MS untouched: none of them has a job any more. Only then is the mark set
   * again, so a run that fails halfway (Postgres away) is repeated by the next.
   */
  async reconcile(): Promise<number> {
    if (!(await this.queue.jobsKept())) {
      const enqueued = await this.reconcileAll();
      await this.queue.markJobsKept();
      return enqueued;
    }
    const cutoff = new Date(Date.now() - this.config.worker.reconcileAfterMs);
    return (await this.reconcileBefore(cutoff)).enqueued;
  }

  private async reconcileAll(): Promise<number> {
    const cutoff = new Date();
    let total = 0;
    // Each batch is touched, failed or moved on (updated after the cutoff), so the next one
    // holds the next ones.
    for (let batch = 0; batch < MAX_BATCHES_AT_ONCE; batch++) {
      const { found, enqueued } = await this.reconcileBefore(cutoff);
      total += enqueued;
      if (found < BATCH) break;
    }
    if (total) this.logger.warn(`Redis lost its jobs: re-enqueued ${total} unsettled operation(s)`);
    return total;
  }

  /** One batch: the unsettled operations untouched since `cutoff`. */
  private async reconcileBefore(cutoff: Date): Promise<{ found: number; enqueued: number }> {
    await this.repack(cutoff);
    const stale = await this.operations.findStale(cutoff, BATCH);
    const now = Date.now();
    const expired = stale.filter((operation) => this.expired(operation, now));
    const again = stale.filter((operation) => !expired.includes(operation));
    let failed = 0;
    // Through the settler, so the API's waiters and the metrics see these failures too.
    for (const operation of expired) {
      if (await this.settler.failQueued(operation, retriesExhausted(operation.lastError))) failed++;
    }
    for (const operation of again) await this.queue.enqueue(operation);
    await this.operations.touch(again.map((operation) => operation.id));
    if (failed) this.logger.warn(`Failed ${failed} queued operation(s) past their deadline`);
    if (again.length) this.logger.log(`Re-enqueued ${again.length} unsettled operation(s)`);
    return { found: stale.length, enqueued: again.length };
  }

  /** Airdrops with entries no carrier holds, untouched since `cutoff`: packed again. */
  private async repack(cutoff: Date): Promise<void> {
    const open = await this.batches.withUnpackedMembers(cutoff, BATCH);
    for (const batch of open) {
      await this.queue.enqueuePack(batch);
      await this.batches.touchUnpacked(batch.id);
    }
    if (open.length) this.logger.log(`Queued the packing of ${open.length} airdrop(s) again`);
  }

  /**
   * Queued (nothing of it signed can land) and failing for longer than the deadline. Signed
   * ones go back to their executor, which alone can tell when their transaction cannot land.
   */
  private expired(operation: OperationEntity, now: number): boolean {
    return (
      operation.status === 'queued' &&
      pastDeadline(operation.retryingSince, this.config.worker.operationDeadlineMs, now)
    );
  }
}
