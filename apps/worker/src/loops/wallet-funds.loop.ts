import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { WalletFundsMonitor } from '@app/domain';

/**
 * Reads the balances of the managed wallets that matter now every WALLET_BALANCE_CHECK_MS.
 * Every worker runs it: the rows the monitor locks make each low/restored event one.
 */
@Injectable()
export class WalletFundsLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WalletFunds');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly monitor: WalletFundsMonitor,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.monitor
        .checkActive()
        .catch((error: unknown) =>
          this.logger.warn(`Balance checks failed: ${boundedText(error, 500)}`),
        )
        .finally(() => (this.running = undefined));
    }, this.config.walletFunds.checkIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
