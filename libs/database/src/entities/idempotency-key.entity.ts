import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An Idempotency-Key of an account: the first request's hash and the operation it made. */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'account_id' })
  accountId!: string;

  @PrimaryColumn('text')
  key!: string;

  @Column('text', { name: 'request_hash' })
  requestHash!: string;

  @Column('uuid', { name: 'operation_id' })
  operationId!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
