import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '@app/config';
import { ChainsModule } from '@app/chains';
import { DatabaseModule } from '@app/database';
import { ExecutionModule } from '@app/domain';
import { QueueModule } from '@app/queue';
import { ConnectionWatchdog } from './connection-watchdog';
import { MetricsServer } from './metrics-server';
import { OperationsProcessor } from './processors/operations.processor';
import { ReconcilerLoop } from './loops/reconciler.loop';
import { WalletFundsLoop } from './loops/wallet-funds.loop';
import { WebhooksProcessor } from './processors/webhooks.processor';
import { AccountSlots } from './scheduling/account-slots';
import { BacklogPruner } from './scheduling/backlog-pruner';
import { WorkerReadiness } from './worker-readiness';

/** The worker process: Postgres, Redis and the chains; the chain job processors register here. */
@Module({
  imports: [DatabaseModule, QueueModule, ChainsModule, ExecutionModule],
  providers: [
    WorkerReadiness,
    ConnectionWatchdog,
    AccountSlots,
    BacklogPruner,
    OperationsProcessor,
    ReconcilerLoop,
    WalletFundsLoop,
    WebhooksProcessor,
    MetricsServer,
  ],
})
export class WorkerModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return { module: WorkerModule, imports: [ConfigModule.forRoot(config)] };
  }
}
