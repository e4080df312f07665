import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ChainFamily } from '@app/config';

/** A wallet the service signs with for an account; its secret is encrypted at rest. */
@Entity('managed_wallets')
export class ManagedWalletEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  family!: ChainFamily;

  @Column('text')
  address!: string;

  /** AES-256-GCM: iv || tag || ciphertext, bound to the address as associated data. */
  @Column('bytea', { name: 'secret_ciphertext' })
  secretCiphertext!: Buffer;

  @Column('text', { name: 'secret_key_id' })
  secretKeyId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
