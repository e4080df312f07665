import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A metadata JSON document the service hosts at GET /metadata/{id}. */
@Entity('metadata_documents')
export class MetadataDocumentEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('jsonb')
  document!: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
