import { Injectable } from '@nestjs/common';
import type { Network } from '@app/config';
import { newId } from '@app/common';
import { ChainRegistry, NetworkRegistry } from '@app/chains';
import { CreatedWalletRepository } from '@app/database';

export interface CreatedWalletView {
  network: string;
  public_key: string;
  /** Returned in this response only: never stored, logged or queued. */
  secret_key: string;
  created_at: string;
}

/** Wallets made on request: the key pair is returned once and never kept. */
@Injectable()
export class WalletService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
    private readonly createdWallets: CreatedWalletRepository,
  ) {}

  async create(accountId: string, network: Network): Promise<CreatedWalletView> {
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
      public_key: wallet.publicKey,
      secret_key: wallet.secretKey,
      created_at: createdAt.toISOString(),
    };
  }
}
