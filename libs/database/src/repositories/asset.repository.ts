import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AssetEntity, MetadataDocumentEntity, NftItemEntity } from '../entities';
import { pooledQuery } from './pooled-query';

/** Every column of an item, under its entity name. */
const ITEM_COLUMNS = `id, collection_id AS "collectionId", token_id AS "tokenId",
  mint_address AS "mintAddress", owner, burned, name, metadata_id AS "metadataId",
  metadata_uri AS "metadataUri", details, operation_id AS "operationId", created_at AS "createdAt"`;

/**
 * The index on items' mint addresses holds Solana items only (migration 1767500000000: an EVM
 * item's is its collection's `0x` address; base58 has no `0`); its predicate is repeated here
 * as written there, or the planner would not take it.
 */
export const ITEM_BY_MINT = {
  name: 'item-by-mint',
  text: `SELECT ${ITEM_COLUMNS} FROM nft_items
    WHERE mint_address = $1 AND mint_address NOT LIKE '0x%'`,
};

const ITEM_BY_TOKEN_ID = {
  name: 'item-by-token-id',
  text: `SELECT ${ITEM_COLUMNS} FROM nft_items WHERE collection_id = $1 AND token_id = $2`,
};

const ITEM_COUNT = {
  name: 'item-count',
  text: 'SELECT count(*)::int AS count FROM nft_items WHERE collection_id = $1',
};

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

  async findItem(collectionId: string, tokenId: string): Promise<NftItemEntity | null> {
    // One item by the collection's unique (collection_id, token_id): every item GET reads it.
    const rows = await pooledQuery<NftItemEntity>(this.dataSource, ITEM_BY_TOKEN_ID, [
      collectionId,
      tokenId,
    ]);
    return rows[0] ?? null;
  }

  /** A Solana item by its mint address. */
  async findItemByMint(mintAddress: string): Promise<NftItemEntity | null> {
    const rows = await pooledQuery<NftItemEntity>(this.dataSource, ITEM_BY_MINT, [mintAddress]);
    return rows[0] ?? null;
  }

  /** Items minted in the collection, burned ones included. */
  async countItems(collectionId: string): Promise<number> {
    // A plain count on the collection's index (TypeORM's countBy counts DISTINCT ids).
    const [row] = await pooledQuery<{ count: number }>(this.dataSource, ITEM_COUNT, [collectionId]);
    return row.count;
  }

  /** The metadata document of an item, by its collection's creating operation and its id. */
  async findItemMetadataId(collectionOperationId: string, tokenId: string): Promise<string | null> {
    const rows: { metadata_id: string | null }[] = await this.dataSource.query(
      `SELECT i.metadata_id FROM assets a JOIN nft_items i ON i.collection_id = a.id
       WHERE a.operation_id = $1 AND i.token_id = $2`,
      [collectionOperationId, tokenId],
    );
    return rows[0]?.metadata_id ?? null;
  }

  findMetadata(id: string): Promise<MetadataDocumentEntity | null> {
    return this.dataSource.getRepository(MetadataDocumentEntity).findOneBy({ id });
  }
}
