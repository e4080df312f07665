import { Injectable, Logger } from '@nestjs/common';
import { NetworkRegistry } from '@app/chains';
import type { ConcreteNetwork, Network } from '@app/config';
import {
  AccountAssetsRepository,
  decodePageCursor,
  encodePageCursor,
  type AssetEntity,
  type AssetListRow,
  type ItemChangeRow,
  type ItemListRow,
} from '@app/database';
import { AssetLocator } from '../assets/asset-locator';
import { ChainReads } from './chain-reads';
import type { Fresh } from './chain-read-cache';

export interface AccountAssetRead {
  asset: AssetListRow;
  /** Tokens: the live supply (through the chain reads' cache); null when the chain did not answer. */
  supply: Fresh<bigint> | null;
}

export interface CollectionItemRead {
  item: ItemListRow;
  /** The operations that made and changed it, oldest first. */
  changes: ItemChangeRow[];
}

export interface Page<T> {
  entries: T[];
  nextCursor: string | null;
}

/**
 * The console's view of an account's assets: tokens and collections from Postgres, a token's
 * supply from its chain; a collection's items with each one's operations. Owners here are the
 * ones our own operations recorded; GET /nfts/{collection}?token_id= reads the chain's.
 */
@Injectable()
export class AccountAssets {
  private readonly logger = new Logger(AccountAssets.name);

  constructor(
    private readonly assets: AccountAssetsRepository,
    private readonly locator: AssetLocator,
    private readonly networks: NetworkRegistry,
    private readonly chainReads: ChainReads,
  ) {}

  async list(
    accountId: string,
    filter: { kind?: 'token' | 'collection'; network?: ConcreteNetwork },
    limit: number,
    cursor?: string,
  ): Promise<Page<AccountAssetRead>> {
    const rows = await this.assets.listAssets(
      accountId,
      filter,
      limit + 1,
      decodePageCursor(cursor) ?? undefined,
    );
    const page = rows.slice(0, limit);
    const entries = await Promise.all(
      page.map(async (asset) => ({ asset, supply: await this.supplyOf(asset) })),
    );
    return { entries, nextCursor: nextCursorOf(rows, page, limit) };
  }

  async items(
    accountId: string,
    collectionAddress: string,
    network: Network | undefined,
    limit: number,
    cursor?: string,
  ): Promise<{ collection: AssetEntity } & Page<CollectionItemRead>> {
    const { asset: collection } = await this.locator.ownAsset(
      accountId,
      'collection',
      collectionAddress,
      network,
    );
    const rows = await this.assets.listItems(
      collection.id,
      limit + 1,
      decodePageCursor(cursor) ?? undefined,
    );
    const page = rows.slice(0, limit);
    const changes = page.length
      ? await this.assets.itemChanges(accountId, collection.address, page)
      : [];
    const entries = page.map((item) => ({
      item,
      changes: changes.filter(
        (change) =>
          change.operationId === item.operationId ||
          change.itemKey === item.tokenId ||
          change.itemKey === item.mintAddress,
      ),
    }));
    return { collection, entries, nextCursor: nextCursorOf(rows, page, limit) };
  }

  private async supplyOf(asset: AssetListRow): Promise<Fresh<bigint> | null> {
    if (asset.kind !== 'token') return null;
    try {
      return await this.chainReads.tokenSupply(
        this.networks.resolve(asset.network),
        asset.address,
        false,
      );
    } catch (error) {
      // One chain down must not hide the account's other assets.
      this.logger.warn(`Supply of ${asset.address} unavailable: ${String(error)}`);
      return null;
    }
  }
}

function nextCursorOf<T extends { createdAt: Date; id: string }>(
  rows: T[],
  page: T[],
  limit: number,
): string | null {
  const last = page[page.length - 1];
  return rows.length > limit && last ? encodePageCursor(last) : null;
}
