import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  AssetIntent,
  AssetOutcome,
  ErrorCode,
  OperationKind,
  OperationStatus,
} from '@app/common';
import type { ConcreteNetwork } from '@app/config';
import type { AssetDetails } from './asset.entity';

/**
 * One write request, from acceptance to settlement. Status moves
 * queued -> signed -> submitted -> confirmed | failed, one Postgres write per step; the signed
 * transaction is stored before it is broadcast, so recovery re-sends the same bytes.
 */
@Entity('operations')
export class OperationEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  kind!: OperationKind;

  @Column('text')
  network!: ConcreteNetwork;

  @Column('text', { name: 'chain_key' })
  chainKey!: string;

  @Column('text')
  status!: OperationStatus;

  @Column('jsonb')
  intent!: AssetIntent;

  /** What the request said beyond the chain's needs (description, images, ...), for asset rows. */
  @Column('jsonb')
  details!: AssetDetails;

  @Column('uuid', { name: 'metadata_id', nullable: true })
  metadataId!: string | null;

  /** The managed wallet that signs. */
  @Column('text')
  signer!: string;

  @Column('bigint', { nullable: true, transformer: bigintTransformer() })
  nonce!: bigint | null;

  /**
   * The bytes of the transaction it waits on (`tx_hash`), not a column: they live in
   * `transactions` alone. Filled by the reads that carry an operation forward (`findById`,
   * `findInFlight`); absent elsewhere.
   */
  signedTx?: string | null;

  @Column('text', { name: 'tx_hash', nullable: true })
  txHash!: string | null;

  /**
   * Solana: the last block height at which the signed transaction's blockhash is valid. Past it
   * (at the confirmed commitment) an unlanded transaction can never land: only then is the
   * operation signed anew.
   */
  @Column('bigint', {
    name: 'last_valid_block_height',
    nullable: true,
    transformer: bigintTransformer(),
  })
  lastValidBlockHeight?: bigint | null;

  /**
   * Solana: the seed of the new account an operation creates (a token, collection or item
   * mint), sealed with the master key (associated data: the operation id). Made once, kept
   * across re-signing, so a retry never creates a second asset.
   */
  @Column('bytea', { name: 'new_mint_secret', nullable: true })
  newMintSecret?: Buffer | null;

  @Column('text', { name: 'new_mint_key_id', nullable: true })
  newMintKeyId?: string | null;

  /** Solana: the address of that new account, shown while the operation is in flight. */
  @Column('text', { name: 'new_mint_address', nullable: true })
  newMintAddress?: string | null;

  /** An airdrop's entry (a member): its batch and its index in the request. */
  @Column('uuid', { name: 'batch_id', nullable: true })
  batchId?: string | null;

  @Column('integer', { name: 'batch_index', nullable: true })
  batchIndex?: number | null;

  /** A member: the carrier operation whose transaction mints it, while one does. */
  @Column('uuid', { name: 'carrier_id', nullable: true })
  carrierId?: string | null;

  @Column('jsonb', { nullable: true })
  result!: AssetOutcome | null;

  @Column('text', { name: 'error_code', nullable: true })
  errorCode!: ErrorCode | null;

  @Column('text', { name: 'error_message', nullable: true })
  errorMessage!: string | null;

  /** Runs of this operation that ended in a transient failure (RPC down...). */
  @Column('integer', { default: 0 })
  attempts!: number;

  /** The last transient failure's reason: bounded, and fit for the client. */
  @Column('text', { name: 'last_error', nullable: true })
  lastError!: string | null;

  /** When the first transient failure happened: OPERATION_DEADLINE_MS counts from here. */
  @Column('timestamptz', { name: 'retrying_since', nullable: true })
  retryingSince!: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;

  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt!: Date | null;
}

/** A write just accepted: queued, nothing signed, tried or settled yet. */
export function newQueuedOperation(
  fields: Pick<OperationEntity, 'id' | 'accountId' | 'network' | 'chainKey' | 'signer' | 'intent'> &
    Partial<Pick<OperationEntity, 'details' | 'metadataId'>>,
  now = new Date(),
): OperationEntity {
  return {
    kind: fields.intent.kind,
    status: 'queued',
    details: {},
    metadataId: null,
    nonce: null,
    txHash: null,
    result: null,
    errorCode: null,
    errorMessage: null,
    attempts: 0,
    lastError: null,
    retryingSince: null,
    createdAt: now,
    updatedAt: now,
    settledAt: null,
    ...fields,
  };
}

function bigintTransformer() {
  return {
    to: (value: bigint | null | undefined) => (value == null ? value : value.toString()),
    from: (value: string | null) => (value == null ? null : BigInt(value)),
  };
}
