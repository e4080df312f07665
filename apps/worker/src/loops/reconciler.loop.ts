import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Reconciler } from '@app/domain';
import { BacklogPruner } from '../scheduling/backlog-pruner';
import { IntervalRunner } from './interval-runner';

/** Runs the reconciler (and prunes the account backlogs) on an interval. Every worker runs it; re-enqueueing is idempotent. */
@Injectable()
export class ReconcilerLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner: IntervalRunner;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    reconciler: Reconciler,
    pruner: BacklogPruner,
  ) {
    this.runner = new IntervalRunner(
      () => reconciler.reconcile().then(() => pruner.prune()),
      config.worker.reconcileIntervalMs,
      new Logger('Reconciler'),
      'Reconcile failed',
    );
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runner.stop();
  }
}
