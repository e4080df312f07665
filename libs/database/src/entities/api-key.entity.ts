import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An API key: the secret itself is never stored, only its SHA-256 and a display prefix. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  name!: string;

  @Column('text', { name: 'key_prefix' })
  keyPrefix!: string;

  @Column('text', { name: 'key_hash', unique: true })
  keyHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
