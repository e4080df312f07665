import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OperationRepository } from '@app/database';
import { AccountBacklog } from '@app/queue';
import { workerNetworks } from '../worker-networks';

/**
 * Keeps the accounts' pending counts in Redis true to Postgres: an operation whose job completed
 * while its worker was being killed stays counted until this takes it off. A count too high
 * only lowers that account's priority a little until then.
 */
@Injectable()
export class BacklogPruner {
  private readonly logger = new Logger(BacklogPruner.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly backlog: AccountBacklog,
    private readonly operations: OperationRepository,
  ) {}

  async prune(): Promise<number> {
    let pruned = 0;
    for (const network of workerNetworks(this.config)) {
      pruned += await this.backlog.prune(network, (ids) => this.operations.unsettledAmong(ids));
    }
    if (pruned) this.logger.log(`Took ${pruned} settled operation(s) off the account backlogs`);
    return pruned;
  }
}
