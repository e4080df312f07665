import { Injectable } from '@nestjs/common';
import type { Network } from '@app/config';
import { AssetRepository, type AssetEntity, type NftItemEntity } from '@app/database';
import { NftLocator } from '../assets/nft-locator';
import { ChainReads } from './chain-reads';
import type { Fresh } from './chain-read-cache';

export interface CollectionRead {
  type: 'collection';
  collection: AssetEntity;
  /** Items minted, burned ones included: our own mints, counted in Postgres. */
  minted: number;
}

export interface ItemRead {
  type: 'item';
  collection: AssetEntity;
  item: NftItemEntity;
  /** Burned by us (Postgres) or, as the chain shows it, by anyone. */
  burned: boolean;
  owner: string | null;
  /** The chain read of the owner; null when the item is known burned (no chain read). */
  chain: Omit<Fresh<unknown>, 'value'> | null;
}

/**
 * NFT reads: what the service wrote (names, metadata, minted counts, max supply) from
 * Postgres; an item's current owner from its chain, through ChainReads' cache. The minted
 * count and the item rows change only when one of our operations on the collection settles:
 * they are kept in that cache too (ChainReads.settledState).
 */
@Injectable()
export class NftQueries {
  constructor(
    private readonly nfts: NftLocator,
    private readonly assets: AssetRepository,
    private readonly chainReads: ChainReads,
  ) {}

  async get(
    accountId: string,
    address: string,
    tokenId: string | undefined,
    network: Network | undefined,
    live: boolean,
  ): Promise<CollectionRead | ItemRead> {
    const found = await this.nfts.find(
      accountId,
      address,
      tokenId,
      'token_id',
      network,
      (collection, id) =>
        this.chainReads.settledState(collection, `item|${id}`, live, () =>
          this.assets.findItem(collection.id, id),
        ),
    );
    const { collection, item } = found;
    if (!item) {
      const minted = await this.chainReads.settledState(collection, 'minted', live, () =>
        this.assets.countItems(collection.id),
      );
      return { type: 'collection', collection, minted };
    }
    if (item.burned)
      return { type: 'item', collection, item, burned: true, owner: null, chain: null };
    if (found.network.family === 'evm') {
      const owner = await this.chainReads.evmItemOwner(
        found.network,
        collection.address,
        item.tokenId,
        live,
      );
      return { type: 'item', collection, item, burned: false, owner: owner.value, chain: owner };
    }
    const state = await this.chainReads.solanaItem(
      found.network,
      item.mintAddress,
      item.owner,
      live,
    );
    const { burned, holder } = state.value;
    return { type: 'item', collection, item, burned, owner: holder, chain: state };
  }
}
