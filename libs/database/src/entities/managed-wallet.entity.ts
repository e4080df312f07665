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
   * SIGNER_BACKEND=local: AES-256-GCM, iv || tag || ciphertext, bound to the address as
   * associated data; null for a key a PKCS#11 token holds.
   */
  @Column('bytea', { name: 'secret_ciphertext', nullable: true })
  secretCiphertext!: Buffer | null;

  /** The master key `secretCiphertext` is sealed under. */
  @Column('text', { name: 'secret_key_id', nullable: true })
  secretKeyId!: string | null;

  /** SIGNER_BACKEND=pkcs11: the token's id of the key (CKA_ID, hex); the key never leaves it. */
  @Column('text', { name: 'token_key_id', nullable: true })
  tokenKeyId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
