import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AssetDetails } from './asset.entity';

/** An NFT item of a collection: on EVM a token id of the contract, on Solana its own mint. */
@Entity('nft_items')
export class NftItemEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'collection_id' })
  collectionId!: string;

  @Column('text', { name: 'token_id' })
  tokenId!: string;

  @Column('text', { name: 'mint_address' })
  mintAddress!: string;

  @Column('text')
  owner!: string;

  @Column('boolean')
  burned!: boolean;

  @Column('text')
  name!: string;

  @Column('uuid', { name: 'metadata_id', nullable: true })
  metadataId!: string | null;

  @Column('text', { name: 'metadata_uri', nullable: true })
  metadataUri!: string | null;

  @Column('jsonb')
  details!: AssetDetails;

  @Column('uuid', { name: 'operation_id' })
  operationId!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
