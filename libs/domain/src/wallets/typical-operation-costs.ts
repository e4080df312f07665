import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { EvmAdapter, SolanaAdapter, cappedFees, type NetworkDefinition } from '@app/chains';
import { feePolicyOf } from '../operations/evm/evm-fee-policy';
import { evmOperationCost, solanaOperationCost } from './operation-cost';

/**
 * What a typical write costs on a network now, in base units: the yardstick of a wallet's
 * `estimated_operations_left`. Read from the chain where it is cheap: the EVM fee cap (the
 * adapter shares it for a moment between callers), the Solana rent rate (read once).
 */
@Injectable()
export class TypicalOperationCosts {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly solana: SolanaAdapter,
  ) {}

  async of(network: NetworkDefinition): Promise<bigint> {
    if (network.family === 'solana') return solanaOperationCost(await this.solana.rentOf(network));
    const { maxFeePerGas } = feePolicyOf(this.config, network);
    return evmOperationCost(cappedFees(await this.evm.fees(network), maxFeePerGas));
  }
}
