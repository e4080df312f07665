import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { returnedRows } from './returned-rows';

export interface SolanaSignedTransaction {
  /** base64 wire bytes. */
  signedTx: string;
  /** The fee payer's signature (base58): the transaction id. */
  txHash: string;
  lastValidBlockHeight: bigint;
  /** The new mint's sealed seed, when this signing made it (stored once, never replaced). */
  newMintSecret?: { ciphertext: Buffer; keyId: string };
  /** The new mint's address (the same at every signing: its seed is kept). */
  newMintAddress?: string;
  /** What the transaction pays beyond the base fee (e.g. its compute-unit price). */
  fees?: Record<string, string>;
}

/**
 * The Solana-only steps of an operation's state machine (they carry the Solana columns), each one
 * conditional UPDATE: a step taken twice, or by two workers, changes nothing. The shared steps
 * (submitted, confirmed, failed) are OperationRepository's.
 */
@Injectable()
export class SolanaOperationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * queued -> signed, with the signed bytes, their blockhash expiry and (first signing only) the
   * new mint's sealed seed; the transaction is recorded among the operation's transactions, whose
   * key refuses a signature another operation owns. False when another worker got there first.
   */
  async markSigned(id: string, signed: SolanaSignedTransaction): Promise<boolean> {
    const secret = signed.newMintSecret;
    // Raw SQL: these run once per operation on the hot path, and TypeORM's update builder costs
    // more CPU than the round trip. The transaction is recorded in the same statement.
    const rows: unknown[] = await this.dataSource.query(
      `WITH signed AS (
         UPDATE operations
         SET status = 'signed', tx_hash = $3, last_valid_block_height = $4,
             new_mint_secret = COALESCE($5, new_mint_secret),
             new_mint_key_id = COALESCE($6, new_mint_key_id),
             new_mint_address = COALESCE($8, new_mint_address), updated_at = now()
         WHERE id = $1 AND status = 'queued' AND carrier_id IS NULL
           AND ($5::bytea IS NULL OR new_mint_secret IS NULL)
         RETURNING id, chain_key),
       stored AS (
         INSERT INTO transactions (chain_key, tx_hash, last_valid_block_height, fees, signed_tx)
         SELECT chain_key, $3, $4, $7::jsonb, $2 FROM signed)
       INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
       SELECT chain_key, $3, 0, id FROM signed
       RETURNING operation_id`,
      [
        id,
        signed.signedTx,
        signed.txHash,
        signed.lastValidBlockHeight.toString(),
        secret?.ciphertext ?? null,
        secret?.keyId ?? null,
        signed.fees ? JSON.stringify(signed.fees) : null,
        signed.newMintAddress ?? null,
      ],
    );
    return rowCount(rows) === 1;
  }

  /**
   * signed|submitted -> queued, forgetting a transaction that provably never landed and never
   * can (its blockhash expired). Only that very transaction (by signature) is released, so a
   * newer signing by another worker is never undone. The new mint's seed stays.
   */
  async releaseExpired(id: string, txHash: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `UPDATE operations
       SET status = 'queued', tx_hash = NULL, last_valid_block_height = NULL,
           updated_at = now()
       WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'submitted')
       RETURNING id`,
      [id, txHash],
    );
    return rowCount(rows) === 1;
  }
}

function rowCount(result: unknown[]): number {
  return returnedRows(result).length;
}
