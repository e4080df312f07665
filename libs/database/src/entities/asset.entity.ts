import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ConcreteNetwork } from '@app/config';

export interface AssetDetails {
  description?: string;
  images?: string[];
  image?: string;
  website?: string;
  attributes?: Record<string, unknown>[];
  seller_fee?: number;
  max_supply?: string | null;
  /** Token operations: the amount as requested, in whole-token units. */
  amount?: string;
  decimals?: number;
}

/** A fungible token or an NFT collection the service created (a mint or a contract). */
@Entity('assets')
export class AssetEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  kind!: 'token' | 'collection';

  @Column('text')
  network!: ConcreteNetwork;

  @Column('text', { name: 'chain_key' })
  chainKey!: string;

  @Column('text')
  address!: string;

  /** The managed wallet holding the mint or contract authority. */
  @Column('text')
  owner!: string;

  @Column('text')
  name!: string;

  @Column('text')
  symbol!: string;

  @Column('integer', { nullable: true })
  decimals!: number | null;

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
