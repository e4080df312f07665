import { Injectable } from '@nestjs/common';
import { NetworkRegistry } from '@app/chains';
import { OperationRepository } from '@app/database';
import { SettlementChannel } from '@app/queue';
import { EvmOperationExecutor } from './evm/evm-operation.executor';
import { settledMessage, settlementOf } from './settlement';
import { SolanaOperationExecutor } from './solana/solana-operation.executor';

/** The worker's entry point: carries one operation forward, by its chain family. */
@Injectable()
export class OperationRunner {
  constructor(
    private readonly operations: OperationRepository,
    private readonly networks: NetworkRegistry,
    private readonly evm: EvmOperationExecutor,
    private readonly solana: SolanaOperationExecutor,
    private readonly channel: SettlementChannel,
  ) {}

  async run(operationId: string): Promise<void> {
    const operation = await this.operations.findById(operationId);
    if (!operation) return; // nothing to do for an id Postgres does not know
    if (operation.status === 'confirmed' || operation.status === 'failed') {
      await this.channel.publish(settledMessage(operation.id, settlementOf(operation)));
      return;
    }
    const network = this.networks.resolve(operation.network);
    switch (network.family) {
      case 'evm':
        return this.evm.execute(network, operation);
      case 'solana':
        return this.solana.execute(network, operation);
    }
  }
}
