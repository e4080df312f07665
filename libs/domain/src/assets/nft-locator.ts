import { Injectable } from '@nestjs/common';
import { AppError } from '@app/common';
import type { Network } from '@app/config';
import { NetworkRegistry, SolanaAdapter, type NetworkDefinition } from '@app/chains';
import { AssetRepository, type AssetEntity, type NftItemEntity } from '@app/database';
import { AssetLocator } from './asset-locator';
import { checkEvmTokenId } from './chain-limits';

/** A collection of the caller's, and one of its items when the request names one. */
export interface NftTarget {
  network: NetworkDefinition;
  collection: AssetEntity;
  item: NftItemEntity | null;
}

/** Where the locator reads an item of a collection: Postgres unless a reader caches it. */
export type ItemFinder = (
  collection: AssetEntity,
  tokenId: string,
) => Promise<NftItemEntity | null>;

/**
 * What an NFT path names, by the addressing rules of its chain family (contract, "NFT
 * transfer"): on EVM a collection's contract, with `token_id` one of its items; on Solana a
 * collection's mint, with `token_id` one of its items' mints, or an item's mint itself.
 * Unknown, or another account's: 404. A `network` other than the asset's: 400.
 */
@Injectable()
export class NftLocator {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly locator: AssetLocator,
    private readonly assets: AssetRepository,
    private readonly solana: SolanaAdapter,
  ) {}

  /** `field`: the request's name for the item id, in error messages. */
  async find(
    accountId: string,
    address: string,
    tokenId: string | undefined,
    field: string,
    network: Network | undefined,
    findItem: ItemFinder = (collection, id) => this.assets.findItem(collection.id, id),
  ): Promise<NftTarget> {
    if (this.locator.pathAddress(address, network).family === 'solana') {
      return this.solanaTarget(accountId, address, tokenId, field, network, findItem);
    }
    const found = await this.locator.ownAsset(accountId, 'collection', address, network);
    if (tokenId === undefined)
      return { network: found.network, collection: found.asset, item: null };
    checkEvmTokenId(tokenId, field);
    const item = await findItem(found.asset, tokenId);
    if (!item) throw AppError.notFound(`No token ${tokenId} in collection ${found.asset.address}.`);
    return { network: found.network, collection: found.asset, item };
  }

  private async solanaTarget(
    accountId: string,
    address: string,
    tokenId: string | undefined,
    field: string,
    network: Network | undefined,
    findItem: ItemFinder,
  ): Promise<NftTarget> {
    const itemMint = tokenId === undefined ? undefined : this.solanaItemId(tokenId, field);
    const collection = await this.locator
      .ownAsset(accountId, 'collection', address, network)
      .catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      });
    if (collection) {
      if (itemMint === undefined)
        return { network: collection.network, collection: collection.asset, item: null };
      const item = await findItem(collection.asset, itemMint);
      if (!item) throw AppError.notFound(`No item ${itemMint} in collection ${address}.`);
      return { network: collection.network, collection: collection.asset, item };
    }

    const canonical = this.solana.normalizeAddress(address)!;
    const item = await this.assets.findItemByMint(canonical);
    const owner = item ? await this.assets.findById(item.collectionId) : null;
    if (!item || !owner || owner.accountId !== accountId || owner.kind !== 'collection') {
      throw AppError.notFound(`No NFT collection or item ${address} in this account.`);
    }
    if (network && this.networks.resolve(network).chainKey !== owner.chainKey) {
      throw AppError.badRequest(`network must match the NFT collection's (${owner.network}).`);
    }
    if (itemMint !== undefined && itemMint !== item.mintAddress) {
      throw AppError.badRequest(`${field} must be the item's mint address (${item.mintAddress}).`);
    }
    return { network: this.networks.resolve(owner.network), collection: owner, item };
  }

  /** On Solana an item's token id is its mint address. */
  private solanaItemId(tokenId: string, field: string): string {
    const canonical = this.solana.normalizeAddress(tokenId);
    if (!canonical) {
      throw AppError.badRequest(`${field} must be an item's mint address on Solana.`);
    }
    return canonical;
  }
}
