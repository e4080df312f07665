import { Injectable } from '@nestjs/common';
import { formatUnits } from 'ethers';
import type { Network } from '@app/config';
import { newId } from '@app/common';
import { ChainRegistry, NetworkRegistry, type NetworkDefinition } from '@app/chains';
import { CreatedWalletRepository, ManagedWalletRepository } from '@app/database';
import { readPathAddress } from '../assets/path-address';

export interface CreatedWalletView {
  network: string;
  public_key: string;
  /** Returned in this response only: never stored, logged or queued. */
  secret_key: string;
  created_at: string;
}

export interface WalletView {
  network: string;
  public_key: string;
  balance: string;
  balance_base_units: string;
  currency: string;
  managed: boolean;
  created_at?: string;
}

@Injectable()
export class WalletService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
    private readonly createdWallets: CreatedWalletRepository,
    private readonly managedWallets: ManagedWalletRepository,
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

  /**
   * Any well-formed address answers: its format tells the family; `?network=` picks the EVM
   * network (default: the deployment's default EVM network).
   */
  async get(accountId: string, address: string, network?: Network): Promise<WalletView> {
    const { definition, canonical } = this.locate(address, network);
    const adapter = this.chains.adapter(definition.family);
    const [balance, managed, created] = await Promise.all([
      adapter.getNativeBalance(definition, canonical),
      this.managedWallets.findForAccount(accountId, definition.family),
      this.createdWallets.findForAccount(accountId, canonical),
    ]);
    const isManaged = managed?.address === canonical;
    const createdAt = isManaged ? managed.createdAt : created?.createdAt;
    return {
      network: definition.network,
      public_key: canonical,
      balance: formatUnits(balance, definition.currency.decimals),
      balance_base_units: balance.toString(),
      currency: definition.currency.symbol,
      managed: isManaged,
      ...(createdAt ? { created_at: createdAt.toISOString() } : {}),
    };
  }

  private locate(
    address: string,
    network: Network | undefined,
  ): { definition: NetworkDefinition; canonical: string } {
    const parsed = readPathAddress(
      { chains: this.chains, networks: this.networks },
      'wallet_address',
      address,
      network,
    );
    const definition = this.networks.resolve(
      network ?? (parsed.family === 'solana' ? 'solana' : 'evm'),
    );
    return { definition, canonical: parsed.address };
  }
}
