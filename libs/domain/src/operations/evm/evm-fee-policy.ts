import type { AppConfig, EvmNetwork } from '@app/config';
import type { EvmNetworkDefinition, FeePolicy } from '@app/chains';
import { feeCeilingWei, type SigningPolicy } from '../../policies/signing-policy';

/**
 * The network's fee ceiling and the replacement bump, from configuration; with an account's
 * signing policy, the lower of the deployment's ceiling and the account's `max_fee_gwei`.
 */
export function feePolicyOf(
  config: AppConfig,
  network: EvmNetworkDefinition,
  policy?: SigningPolicy,
): FeePolicy {
  const deployment = config.evm.maxFeePerGas[network.network as EvmNetwork];
  const account = policy && feeCeilingWei(policy, network.network);
  return {
    bumpPercent: config.evm.feeBumpPercent,
    maxFeePerGas: account !== undefined && account < deployment ? account : deployment,
  };
}
