import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An Idempotency-Key of an account: the first request's hash and the operation (or batch) it made. */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'account_id' })
  accountId!: string;

  @PrimaryColumn('text')
  key!: string;

  @Column('text', { name: 'request_hash' })
  requestHash!: string;

  @Column('uuid', { name: 'operation_id', nullable: true })
  operationId!: string | null;

  @Column('uuid', { name: 'batch_id', nullable: true })
  batchId?: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
