import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { NetworkRegistry } from '@app/chains';
import { ChainKeyRepository } from '@app/database';

/**
 * Before anything reads a chain key: each public chain's key is the one pinned on the first
 * start that met the chain, its identity (`evm:8453`, `solana:mainnet`; ChainKeyRepository.pin).
 * Everything stored of a chain (its assets, operations, transactions, the nonce ledger) is found
 * by its key: a key made of the network's RPC URL, as keys were before they were pinned, would
 * leave all of that behind when the network moved to another provider, the network's tokens
 * answering 404 and its wallets' nonces read afresh while their transactions are in flight.
 */
@Injectable()
export class ChainKeyPinning implements OnModuleInit {
  private readonly logger = new Logger(ChainKeyPinning.name);

  constructor(
    private readonly registry: NetworkRegistry,
    private readonly chainKeys: ChainKeyRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const urlKeys = this.registry.chainKeysToPin();
    const pinned = await this.chainKeys.pin(urlKeys);
    this.registry.pinChainKeys(pinned);
    for (const [identity, key] of pinned) {
      // Not the key itself: made of an RPC URL, it may hold the provider's API key.
      if (key !== identity && key !== urlKeys.get(identity)) {
        this.logger.log(
          `Chain ${identity} keeps the key made of its RPC URL of before keys were pinned: its first RPC URL changed since`,
        );
      }
    }
  }
}
