import { METRICS } from '@app/common';
import type { ConcreteNetwork } from '@app/config';
import type { AccountBacklog } from './account-backlog';

/** Sets the per-account queue depth and in-flight gauges from Redis (when /metrics is scraped). */
export async function refreshAccountGauges(
  backlog: AccountBacklog,
  networks: readonly ConcreteNetwork[],
): Promise<void> {
  const depths = await Promise.all(networks.map((network) => backlog.depths(network)));
  // Accounts with nothing pending any more drop out of the series.
  METRICS.accountPending.reset();
  METRICS.accountInFlight.reset();
  networks.forEach((network, i) => {
    for (const { accountId: account, pending, inFlight } of depths[i]) {
      METRICS.accountPending.set({ network, account }, pending);
      METRICS.accountInFlight.set({ network, account }, inFlight);
    }
  });
}
