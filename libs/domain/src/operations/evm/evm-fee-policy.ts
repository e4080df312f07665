import type { AppConfig, EvmNetwork } from '@app/config';
import type { EvmNetworkDefinition, FeePolicy } from '@app/chains';

/** The network's fee ceiling and the replacement bump, from configuration. */
export function feePolicyOf(config: AppConfig, network: EvmNetworkDefinition): FeePolicy {
  return {
    bumpPercent: config.evm.feeBumpPercent,
    maxFeePerGas: config.evm.maxFeePerGas[network.network as EvmNetwork],
  };
}
