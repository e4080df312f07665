import { Injectable } from '@nestjs/common';
import type { ChainFamily, Network } from '@app/config';
import { AppError, BoundedCache } from '@app/common';
import { ChainRegistry, NetworkRegistry, type NetworkDefinition } from '@app/chains';
import { AssetRepository, ManagedWalletRepository, type AssetEntity } from '@app/database';
import { readPathAddress, type PathAddress } from './path-address';

/** An address of the request's asset (canonical), which must not receive it. */
export interface OwnAddress {
  address: string;
  what: 'token' | 'collection' | 'item';
}

/** Finds the caller's assets and checks the addresses and networks of a request. */
@Injectable()
export class AssetLocator {
  /** Asset rows and managed wallet addresses never change once written. */
  private readonly assetCache = new BoundedCache<AssetEntity>();
  private readonly walletCache = new BoundedCache<string>();

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
    private readonly assets: AssetRepository,
    private readonly managedWallets: ManagedWalletRepository,
  ) {}

  /**
   * The caller's token or collection at this address. Unknown, or another account's: 404 (the
   * contract: not found, without telling which). A `network` that is not the asset's: 400.
   */
  async ownAsset(
    accountId: string,
    kind: AssetEntity['kind'],
    address: string,
    network?: Network,
  ): Promise<{ asset: AssetEntity; network: NetworkDefinition }> {
    const what = kind === 'token' ? 'token' : 'NFT collection';
    const canonical = this.pathAddress(address, network);
    const candidates = network
      ? [this.networks.resolve(network)]
      : this.networksOf(canonical.family);
    for (const definition of uniqueChains(candidates)) {
      const asset = await this.assetCache.getOrLoad(
        `${definition.chainKey}|${canonical.address}`,
        () => this.assets.findAsset(definition.chainKey, canonical.address),
      );
      if (
        asset &&
        asset.accountId === accountId &&
        asset.kind === kind &&
        (!network || definition.network === asset.network)
      ) {
        return { asset, network: this.networks.resolve(network ?? asset.network) };
      }
    }
    if (network) {
      const elsewhere = await this.ownAsset(accountId, kind, address).catch(() => null);
      if (elsewhere) {
        throw AppError.badRequest(`network must match the ${what}'s (${elsewhere.asset.network}).`);
      }
    }
    throw AppError.notFound(`No ${what} ${address} in this account.`);
  }

  /** A `{mint_address}` of the path: well formed, and of the network's family when one is named. */
  pathAddress(address: string, network?: Network): PathAddress {
    return readPathAddress(
      { chains: this.chains, networks: this.networks },
      'mint_address',
      address,
      network,
    );
  }

  /**
   * A recipient address in the network's format, canonical, that can still move what it is sent
   * (docs/api.md, "Recipients where assets are lost"): not an address the chain family knows as a sink (a program, a sysvar,
   * the zero address: its adapter's rule), nor one of the request's own asset (`own`: a mint on
   * Solana, a contract on EVM), whose key nobody holds.
   */
  recipient(
    network: NetworkDefinition,
    address: string,
    own: readonly OwnAddress[],
    field = 'recipient',
  ): string {
    const adapter = this.chains.adapter(network.family);
    const canonical = adapter.normalizeAddress(address);
    if (!canonical) throw AppError.badRequest(`${field} is not a ${network.network} address.`);
    const kind = network.family === 'solana' ? 'mint' : 'contract';
    const sink =
      adapter.lostRecipient(canonical) ??
      own
        .filter((asset) => asset.address === canonical)
        .map((asset) => `the ${asset.what}'s own ${kind}`)[0];
    if (sink) {
      throw AppError.badRequest(`${field} ${canonical} is ${sink}: assets sent there are lost.`);
    }
    return canonical;
  }

  async managedWallet(accountId: string, family: ChainFamily): Promise<string> {
    const address = await this.walletCache.getOrLoad(`${accountId}|${family}`, async () => {
      const wallet = await this.managedWallets.findForAccount(accountId, family);
      return wallet?.address ?? null;
    });
    if (!address) throw new Error(`Account ${accountId} has no managed ${family} wallet`);
    return address;
  }

  private networksOf(family: ChainFamily): NetworkDefinition[] {
    return this.networks.all().filter((definition) => definition.family === family);
  }
}

function uniqueChains(definitions: NetworkDefinition[]): NetworkDefinition[] {
  const seen = new Set<string>();
  return definitions.filter(
    (definition) => !seen.has(definition.chainKey) && seen.add(definition.chainKey),
  );
}
