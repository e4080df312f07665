import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OperationRepository, type OperationEntity } from '@app/database';
import { OperationQueue } from '@app/queue';
import { pastDeadline, retriesExhausted } from './operation-deadline';
import { OperationSettler } from './operation-settler';

const BATCH = 500;

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
    private readonly queue: OperationQueue,
    private readonly settler: OperationSettler,
  ) {}

  /** Returns how many operations were re-enqueued. */
  async reconcile(): Promise<number> {
    const cutoff = new Date(Date.now() - this.config.worker.reconcileAfterMs);
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
    return again.length;
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
