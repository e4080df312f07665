import { METRICS } from '@app/common';
import { fromBaseUnits } from '../assets/amounts';

/** A series not set for this long is dropped: a wallet gone idle stops costing a series. */
const SERIES_KEPT_MS = 60 * 60_000;

/**
 * `ais_managed_wallet_balance{network, address}`, in whole units of the native currency: one
 * series per managed wallet the monitor has read within the last hour, no more.
 */
export class WalletBalanceGauge {
  private readonly lastSet = new Map<string, { network: string; address: string; at: number }>();

  set(network: string, address: string, balance: bigint, decimals: number, now = Date.now()): void {
    METRICS.managedWalletBalance.set(
      { network, address },
      Number(fromBaseUnits(balance, decimals)),
    );
    this.lastSet.set(`${network}|${address}`, { network, address, at: now });
  }

  forgetIdle(now = Date.now()): void {
    for (const [key, { network, address, at }] of this.lastSet) {
      if (now - at < SERIES_KEPT_MS) continue;
      METRICS.managedWalletBalance.remove({ network, address });
      this.lastSet.delete(key);
    }
  }
}
