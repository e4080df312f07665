import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { NetworkRegistry } from '@app/chains';
import {
  AccountEventRepository,
  UnitOfWork,
  WalletFundsRepository,
  type WatchedWallet,
} from '@app/database';
import { fromBaseUnits } from '../assets/amounts';
import { isLow, walletFundsTransition } from './wallet-funds-transition';

/**
 * Stores a watched wallet's balance reading and announces a crossing of its network's
 * threshold. The wallet's row is locked while deciding, and the flag flips in the transaction
 * that appends the event: however many workers read the balance, each crossing is one event.
 */
@Injectable()
export class WalletFundsRecorder {
  private readonly logger = new Logger(WalletFundsRecorder.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly networks: NetworkRegistry,
    private readonly funds: WalletFundsRepository,
    private readonly events: AccountEventRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async record(wallet: WatchedWallet, balance: bigint, readAt: Date): Promise<void> {
    const threshold = this.config.walletFunds.lowBalance[wallet.network];
    const low = isLow(balance, threshold);
    const event = await this.unitOfWork.run(async (scope) => {
      const transition = walletFundsTransition(await this.funds.lock(wallet, scope), readAt, low);
      if (!transition.store) return null;
      await this.funds.store({ ...wallet, balance, low, readAt }, scope);
      if (!transition.event) return null;
      const { decimals } = this.networks.resolve(wallet.network).currency;
      await this.events.append(
        wallet.accountId,
        transition.event,
        {
          network: wallet.network,
          address: wallet.address,
          balance: fromBaseUnits(balance, decimals),
          threshold: fromBaseUnits(threshold, decimals),
        },
        scope,
      );
      return transition.event;
    });
    if (event) this.logger.log(`${event}: ${wallet.network} ${wallet.address} holds ${balance}`);
  }
}
