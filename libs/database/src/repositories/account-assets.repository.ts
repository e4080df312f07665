import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ConcreteNetwork } from '@app/config';
import type { AssetDetails } from '../entities';

export interface AssetListRow {
  id: string;
  kind: 'token' | 'collection';
  network: ConcreteNetwork;
  address: string;
  owner: string;
  name: string;
  symbol: string;
  decimals: number | null;
  metadataUri: string | null;
  details: AssetDetails;
  createdAt: Date;
  /** The transaction that created it. */
  txHash: string | null;
  /** Collections: items minted (burned ones included). */
  minted: number;
}

export interface ItemListRow {
  tokenId: string;
  mintAddress: string;
  owner: string;
  burned: boolean;
  name: string;
  metadataUri: string | null;
  details: AssetDetails;
  createdAt: Date;
  operationId: string;
}

/** One of the operations that made or changed an item. */
export interface ItemChangeRow {
  operationId: string;
  kind: string;
  status: string;
  txHash: string | null;
  createdAt: Date;
  /** The item it concerns (its token id, or on Solana its mint). */
  itemKey: string;
}

/** The console's lists of an account's assets: newest first, paged by (created_at, id). */
@Injectable()
export class AccountAssetsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Tokens and collections with the transaction that created each and a collection's count. */
  listAssets(
    accountId: string,
    filter: { kind?: 'token' | 'collection'; network?: ConcreteNetwork },
    limit: number,
    before?: { at: Date; id: string },
  ): Promise<AssetListRow[]> {
    return this.dataSource.query(
      `SELECT a.id, a.kind, a.network, a.address, a.owner, a.name, a.symbol, a.decimals,
         a.metadata_uri AS "metadataUri", a.details, a.created_at AS "createdAt",
         o.tx_hash AS "txHash",
         (SELECT count(*)::int FROM nft_items i WHERE i.collection_id = a.id) AS minted
       FROM assets a LEFT JOIN operations o ON o.id = a.operation_id
       WHERE a.account_id = $1 AND ($2::text IS NULL OR a.kind = $2)
         AND ($3::text IS NULL OR a.network = $3)
         AND ($4::timestamptz IS NULL OR (a.created_at, a.id) < ($4, $5::uuid))
       ORDER BY a.created_at DESC, a.id DESC LIMIT $6`,
      [
        accountId,
        filter.kind ?? null,
        filter.network ?? null,
        before?.at ?? null,
        before?.id ?? null,
        limit,
      ],
    );
  }

  /** A collection's items, newest first. */
  listItems(
    collectionId: string,
    limit: number,
    before?: { at: Date; id: string },
  ): Promise<(ItemListRow & { id: string })[]> {
    return this.dataSource.query(
      `SELECT i.id, i.token_id AS "tokenId", i.mint_address AS "mintAddress", i.owner, i.burned,
         i.name, i.metadata_uri AS "metadataUri", i.details, i.created_at AS "createdAt",
         i.operation_id AS "operationId"
       FROM nft_items i
       WHERE i.collection_id = $1
         AND ($2::timestamptz IS NULL OR (i.created_at, i.id) < ($2, $3::uuid))
       ORDER BY i.created_at DESC, i.id DESC LIMIT $4`,
      [collectionId, before?.at ?? null, before?.id ?? null, limit],
    );
  }

  /**
   * The operations of these items, oldest first: each item's mint (by its operation id), and the
   * transfers and burns naming the collection and the item (EVM: its token id; Solana: its mint).
   */
  itemChanges(
    accountId: string,
    collection: string,
    items: readonly Pick<ItemListRow, 'tokenId' | 'mintAddress' | 'operationId'>[],
  ): Promise<ItemChangeRow[]> {
    return this.dataSource.query(
      `SELECT o.id AS "operationId", o.kind, o.status, o.tx_hash AS "txHash",
         o.created_at AS "createdAt",
         COALESCE(o.intent->>'tokenId', o.result->>'tokenId') AS "itemKey"
       FROM operations o
       WHERE o.account_id = $1 AND (
         o.id = ANY($2::uuid[])
         OR (o.kind IN ('nft.transfer', 'nft.burn') AND o.intent->>'collection' = $3
             AND o.intent->>'tokenId' = ANY($4::text[])))
       ORDER BY o.created_at, o.id`,
      [
        accountId,
        items.map((item) => item.operationId),
        collection,
        items.flatMap((item) => [item.tokenId, item.mintAddress]),
      ],
    );
  }
}
