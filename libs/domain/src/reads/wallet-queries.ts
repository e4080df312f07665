import { Injectable } from '@nestjs/common';
import type { Network } from '@app/config';
import { BoundedCache } from '@app/common';
import { ChainRegistry, NetworkRegistry, type NetworkDefinition } from '@app/chains';
import {
  CreatedWalletRepository,
  ManagedWalletRepository,
  type CreatedWalletEntity,
  type ManagedWalletEntity,
} from '@app/database';
import { readPathAddress } from '../assets/path-address';
import { ChainReads } from './chain-reads';
import type { Fresh } from './chain-read-cache';

export interface WalletRead {
  network: NetworkDefinition;
  /** The address in its canonical form. */
  address: string;
  /** The live native balance, in base units. */
  balance: Fresh<bigint>;
  /** The account's managed wallet of this family. */
  managed: boolean;
  /** When the service made it (the managed wallet, or one made by POST /wallets). */
  createdAt?: Date;
}

/** Any well-formed address: its balance from its chain, what we know of it from Postgres. */
@Injectable()
export class WalletQueries {
  /** An account's managed wallet of a family never changes once made. */
  private readonly managedWallets = new BoundedCache<ManagedWalletEntity>();
  /** Nor does a wallet made by POST /wallets (an address not made yet is asked every time). */
  private readonly createdWallets = new BoundedCache<CreatedWalletEntity>();

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
    private readonly managed: ManagedWalletRepository,
    private readonly created: CreatedWalletRepository,
    private readonly chainReads: ChainReads,
  ) {}

  /**
   * The address's format tells the family; `?network=` picks the EVM network (default: the
   * deployment's default EVM network).
   */
  async get(
    accountId: string,
    address: string,
    network: Network | undefined,
    live: boolean,
  ): Promise<WalletRead> {
    const { definition, canonical } = this.locate(address, network);
    const [balance, made] = await Promise.all([
      this.chainReads.nativeBalance(definition, canonical, live),
      this.madeBy(accountId, definition.family, canonical),
    ]);
    return {
      network: definition,
      address: canonical,
      balance,
      managed: made.managed,
      createdAt: made.createdAt,
    };
  }

  /** Whether the service made the address for the account: its managed wallet, or by POST. */
  private async madeBy(
    accountId: string,
    family: NetworkDefinition['family'],
    address: string,
  ): Promise<{ managed: boolean; createdAt?: Date }> {
    const managed = await this.managedWallets.getOrLoad(`${accountId}|${family}`, () =>
      this.managed.findForAccount(accountId, family),
    );
    if (managed?.address === address) return { managed: true, createdAt: managed.createdAt };
    const created = await this.createdWallets.getOrLoad(`${accountId}|${address}`, () =>
      this.created.findForAccount(accountId, address),
    );
    return { managed: false, createdAt: created?.createdAt };
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
