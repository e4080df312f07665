import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AssetEntity, MetadataDocumentEntity, NftItemEntity } from '../entities';
import { pooledQuery } from './pooled-query';

/** Tokens, collections, their items and the metadata documents the service hosts. */
@Injectable()
export class AssetRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Any asset at this address on this chain, whoever owns it (callers check the account). */
  findAsset(chainKey: string, address: string): Promise<AssetEntity | null> {
    return this.dataSource.getRepository(AssetEntity).findOneBy({ chainKey, address });
  }

  findById(id: string): Promise<AssetEntity | null> {
    return this.dataSource.getRepository(AssetEntity).findOneBy({ id });
  }

  findItem(collectionId: string, tokenId: string): Promise<NftItemEntity | null> {
    return this.dataSource.getRepository(NftItemEntity).findOneBy({ collectionId, tokenId });
  }

  findItemByMint(mintAddress: string): Promise<NftItemEntity | null> {
    return this.dataSource.getRepository(NftItemEntity).findOneBy({ mintAddress });
  }

  /** Items minted in the collection, burned ones included. */
  async countItems(collectionId: string): Promise<number> {
    // A plain count on the collection's index (TypeORM's countBy counts DISTINCT ids).
    const [row] = await pooledQuery<{ count: number }>(
      this.dataSource,
      'SELECT count(*)::int AS count FROM nft_items WHERE collection_id = $1',
      [collectionId],
    );
    return row.count;
  }

  findMetadata(id: string): Promise<MetadataDocumentEntity | null> {
    return this.dataSource.getRepository(MetadataDocumentEntity).findOneBy({ id });
  }
}
