import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { NetworkRegistry } from '@app/chains';
import { ChainKeyRepository } from '@app/database';

/**
 * Before anything reads a chain key: each public chain's key is the one pinned on the first
 * start that met the chain. Keys are made of a network's first RPC URL, and everything stored of
 * a chain (its assets, operations, transactions, the nonce ledger) is found by its key: without
 * the pin, moving a network to another provider would leave all of that behind, the network's
 * tokens answering 404 and its wallets' nonces read afresh while their transactions are in flight.
 */
@Injectable()
export class ChainKeyPinning implements OnModuleInit {
  private readonly logger = new Logger(ChainKeyPinning.name);

  constructor(
    private readonly registry: NetworkRegistry,
    private readonly chainKeys: ChainKeyRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const current = this.registry.chainKeysToPin();
    const pinned = await this.chainKeys.pin(current);
    this.registry.pinChainKeys(pinned);
    for (const [identity, key] of pinned) {
      if (key !== current.get(identity)) {
        this.logger.log(`Chain ${identity} keeps its key ${key}: its first RPC URL changed since`);
      }
    }
  }
}
