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

  /**
   * SIGNER_BACKEND=local: the key, AES-256-GCM (iv || tag || ciphertext) under the wallet's data
   * key (`dataKey`), or under the master key itself in rows sealed before data keys; bound to the
   * address as associated data. Null for a key a PKCS#11 token holds.
   */
  @Column('bytea', { name: 'secret_ciphertext', nullable: true })
  secretCiphertext!: Buffer | null;

  /** The wallet's data key, wrapped by the master key `secretKeyId` (same format). */
  @Column('bytea', { name: 'data_key', nullable: true })
  dataKey!: Buffer | null;

  /** The master key that wraps `dataKey` (or seals `secretCiphertext`, without one). */
  @Column('text', { name: 'secret_key_id', nullable: true })
  secretKeyId!: string | null;

  /** SIGNER_BACKEND=pkcs11: the token's id of the key (CKA_ID, hex); the key never leaves it. */
  @Column('text', { name: 'token_key_id', nullable: true })
  tokenKeyId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
