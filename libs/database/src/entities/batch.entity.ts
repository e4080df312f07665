import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ConcreteNetwork } from '@app/config';

export type BatchKind = 'token.airdrop' | 'nft.airdrop';

/** `open` until every member has settled; then how they did. */
export type StoredBatchStatus = 'open' | 'completed' | 'completed_with_failures';

/**
 * One airdrop request: its entries are operations of their own (members: `batch_id`,
 * `batch_index`), mostly carried several to a transaction (see migration 1766100000000).
 */
@Entity('batches')
export class BatchEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  kind!: BatchKind;

  @Column('text')
  network!: ConcreteNetwork;

  @Column('text', { name: 'chain_key' })
  chainKey!: string;

  /** The token's mint or contract, or the collection's. */
  @Column('text')
  asset!: string;

  /** The managed wallet that signs every entry. */
  @Column('text')
  signer!: string;

  @Column('integer')
  total!: number;

  @Column('text')
  status!: StoredBatchStatus;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;
}
