import { Injectable } from '@nestjs/common';
import type { ConcreteNetwork, Network } from '@app/config';
import { newId } from '@app/common';
import { ChainRegistry, NetworkRegistry } from '@app/chains';
import { CreatedWalletRepository } from '@app/database';

export interface CreatedWallet {
  network: ConcreteNetwork;
  publicKey: string;
  /** Handed to the caller only: never stored, logged or queued. */
  secretKey: string;
  createdAt: Date;
}

/** Wallets made on request: the key pair is returned once and never kept. */
@Injectable()
export class WalletService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
    private readonly createdWallets: CreatedWalletRepository,
  ) {}

  async create(accountId: string, network: Network): Promise<CreatedWallet> {
    const definition = this.networks.resolve(network);
    const wallet = this.chains.adapter(definition.family).generateWallet();
    wallet.secretBytes.fill(0);
    const createdAt = new Date();
    await this.createdWallets.insert({
      id: newId(),
      accountId,
      network: definition.network,
      address: wallet.publicKey,
      createdAt,
    });
    return {
      network: definition.network,
      publicKey: wallet.publicKey,
      secretKey: wallet.secretKey,
      createdAt,
    };
  }
}
