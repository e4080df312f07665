import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { WalletFundsMonitor } from '@app/domain';
import { IntervalRunner } from './interval-runner';

/**
 * Reads the balances of the managed wallets that matter now every WALLET_BALANCE_CHECK_MS.
 * Every worker runs it: the rows the monitor locks make each low/restored event one.
 */
@Injectable()
export class WalletFundsLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner: IntervalRunner;

  constructor(@Inject(APP_CONFIG) config: AppConfig, monitor: WalletFundsMonitor) {
    this.runner = new IntervalRunner(
      () => monitor.checkActive(),
      config.walletFunds.checkIntervalMs,
      new Logger('WalletFunds'),
      'Balance checks failed',
    );
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runner.stop();
  }
}
