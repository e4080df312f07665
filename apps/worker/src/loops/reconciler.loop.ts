import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Reconciler } from '@app/domain';
import { BacklogPruner } from '../scheduling/backlog-pruner';

/** Runs the reconciler (and prunes the account backlogs) on an interval. Every worker runs it; re-enqueueing is idempotent. */
@Injectable()
export class ReconcilerLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Reconciler');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reconciler: Reconciler,
    private readonly pruner: BacklogPruner,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.reconciler
        .reconcile()
        .then(() => this.pruner.prune())
        .catch((error: unknown) => this.logger.warn(`Reconcile failed: ${boundedText(error, 500)}`))
        .finally(() => (this.running = undefined));
    }, this.config.worker.reconcileIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
