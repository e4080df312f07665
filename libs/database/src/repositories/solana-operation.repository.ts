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

/** One operation's signing, to store. */
export interface SolanaSigning {
  id: string;
  signed: SolanaSignedTransaction;
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
    const [claimed] = await this.markSignedMany([{ id, signed }]);
    return claimed;
  }

  /**
   * `markSigned` for many operations in one statement (a group of signings written together);
   * says, in their order, which of them it claimed.
   */
  async markSignedMany(signings: SolanaSigning[]): Promise<boolean[]> {
    if (signings.length === 0) return [];
    const column = <T>(value: (signed: SolanaSignedTransaction) => T) =>
      signings.map(({ signed }) => value(signed));
    // Raw SQL: these run once per operation on the hot path, and TypeORM's update builder costs
    // more CPU than the round trip. The transactions are recorded in the same statement.
    // `updated_at` is left as it was, so that no index changes and the update is HOT: the
    // signing's time is its transaction's `created_at` (findStale and the detail read it).
    const rows: unknown[] = await this.dataSource.query(
      `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::bytea[],
           $6::text[], $7::jsonb[], $8::text[])
           AS v(id, signed_tx, tx_hash, last_valid, secret, key_id, fees, mint_address)),
       signed AS (
         UPDATE operations o
         SET status = 'signed', tx_hash = v.tx_hash, last_valid_block_height = v.last_valid,
             new_mint_secret = COALESCE(v.secret, o.new_mint_secret),
             new_mint_key_id = COALESCE(v.key_id, o.new_mint_key_id),
             new_mint_address = COALESCE(v.mint_address, o.new_mint_address)
         FROM v
         WHERE o.id = v.id AND o.id = ANY($1::uuid[]) AND o.status = 'queued'
           AND o.carrier_id IS NULL
           AND (v.secret IS NULL OR o.new_mint_secret IS NULL)
         RETURNING o.id, o.chain_key, v.tx_hash, v.last_valid, v.fees, v.signed_tx),
       stored AS (
         INSERT INTO transactions (chain_key, tx_hash, last_valid_block_height, fees, signed_tx)
         SELECT chain_key, tx_hash, last_valid, fees, transaction_wire_bytes(chain_key, signed_tx)
         FROM signed)
       INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
       SELECT chain_key, tx_hash, 0, id FROM signed
       RETURNING operation_id`,
      [
        signings.map(({ id }) => id),
        column((signed) => signed.signedTx),
        column((signed) => signed.txHash),
        column((signed) => signed.lastValidBlockHeight.toString()),
        column((signed) => signed.newMintSecret?.ciphertext ?? null),
        column((signed) => signed.newMintSecret?.keyId ?? null),
        column((signed) => (signed.fees ? JSON.stringify(signed.fees) : null)),
        column((signed) => signed.newMintAddress ?? null),
      ],
    );
    const claimed = new Set(
      returnedRows<{ operation_id: string }>(rows).map((r) => r.operation_id),
    );
    return signings.map(({ id }) => claimed.has(id));
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
