import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OperationRepository } from '@app/database';
import { OperationQueue } from '@app/queue';

const BATCH = 500;

/**
 * Postgres alone decides what exists: operations left unsettled and untouched for a while (their
 * job was lost with Redis, enqueueing failed, attempts ran out) are put on their queue again.
 * The job id is the operation id, so one already queued or running is not doubled.
 */
@Injectable()
export class Reconciler {
  private readonly logger = new Logger(Reconciler.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operations: OperationRepository,
    private readonly queue: OperationQueue,
  ) {}

  /** Returns how many operations were re-enqueued. */
  async reconcile(): Promise<number> {
    const cutoff = new Date(Date.now() - this.config.worker.reconcileAfterMs);
    const stale = await this.operations.findStale(cutoff, BATCH);
    for (const operation of stale) await this.queue.enqueue(operation);
    await this.operations.touch(stale.map((operation) => operation.id));
    if (stale.length) this.logger.log(`Re-enqueued ${stale.length} unsettled operation(s)`);
    return stale.length;
  }
}
