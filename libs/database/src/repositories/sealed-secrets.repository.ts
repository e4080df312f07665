import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf, type WorkScope } from '../unit-of-work';

/** A managed wallet's sealed key, as a master key rotation reads it. */
export interface SealedWallet {
  id: string;
  accountId: string;
  address: string;
  secretCiphertext: Buffer;
  dataKey: Buffer | null;
  keyId: string;
}

/** One secret sealed under a master key: an operation's new mint keypair or a webhook secret. */
export interface SealedRow {
  id: string;
  ciphertext: Buffer;
  keyId: string;
}

/** A webhook endpoint's secrets: the current one, and the previous one during its grace. */
export interface SealedEndpoint {
  id: string;
  secret: SealedRow;
  previous: SealedRow | null;
}

/**
 * The rows that hold secrets sealed under a master key, for `npm run keys:rotate`: read a batch
 * at a time under a row lock (others' batches skip them), written back in the same transaction.
 */
@Injectable()
export class SealedSecretsRepository {
  constructor(private readonly dataSource: DataSource) {}

  walletsNotUnder(scope: WorkScope, keyId: string, limit: number): Promise<SealedWallet[]> {
    return managerOf(scope).query(
      `SELECT id, account_id AS "accountId", address, secret_ciphertext AS "secretCiphertext",
              data_key AS "dataKey", secret_key_id AS "keyId"
         FROM managed_wallets
        WHERE secret_key_id IS NOT NULL AND secret_key_id <> $1
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [keyId, limit],
    );
  }

  async updateWallet(
    scope: WorkScope,
    id: string,
    sealed: { secretCiphertext: Buffer; dataKey: Buffer; keyId: string },
  ): Promise<void> {
    await managerOf(scope).query(
      `UPDATE managed_wallets SET secret_ciphertext = $2, data_key = $3, secret_key_id = $4
        WHERE id = $1`,
      [id, sealed.secretCiphertext, sealed.dataKey, sealed.keyId],
    );
  }

  /**
   * Only unsettled operations hold one (`operations_secret_until_settled`): read along their
   * partial index (migration 1768100000000). No order: a row resealed leaves the result.
   */
  newMintSecretsNotUnder(scope: WorkScope, keyId: string, limit: number): Promise<SealedRow[]> {
    return managerOf(scope).query(
      `SELECT id, new_mint_secret AS ciphertext, new_mint_key_id AS "keyId"
         FROM operations
        WHERE settled_at IS NULL AND new_mint_secret IS NOT NULL AND new_mint_key_id <> $1
        LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [keyId, limit],
    );
  }

  async updateNewMintSecret(scope: WorkScope, row: SealedRow): Promise<void> {
    await managerOf(scope).query(
      `UPDATE operations SET new_mint_secret = $2, new_mint_key_id = $3 WHERE id = $1`,
      [row.id, row.ciphertext, row.keyId],
    );
  }

  async endpointsNotUnder(
    scope: WorkScope,
    keyId: string,
    limit: number,
  ): Promise<SealedEndpoint[]> {
    const rows: {
      id: string;
      secret: Buffer;
      secretKeyId: string;
      previous: Buffer | null;
      previousKeyId: string | null;
    }[] = await managerOf(scope).query(
      `SELECT id, secret_ciphertext AS secret, secret_key_id AS "secretKeyId",
              previous_secret_ciphertext AS previous, previous_secret_key_id AS "previousKeyId"
         FROM webhook_endpoints
        WHERE secret_key_id <> $1 OR (previous_secret_key_id IS NOT NULL
                                      AND previous_secret_key_id <> $1)
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [keyId, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      secret: { id: row.id, ciphertext: row.secret, keyId: row.secretKeyId },
      previous:
        row.previous && row.previousKeyId
          ? { id: row.id, ciphertext: row.previous, keyId: row.previousKeyId }
          : null,
    }));
  }

  async updateEndpoint(
    scope: WorkScope,
    id: string,
    secret: SealedRow,
    previous: SealedRow | null,
  ): Promise<void> {
    await managerOf(scope).query(
      `UPDATE webhook_endpoints SET secret_ciphertext = $2, secret_key_id = $3,
              previous_secret_ciphertext = COALESCE($4, previous_secret_ciphertext),
              previous_secret_key_id = COALESCE($5, previous_secret_key_id)
        WHERE id = $1`,
      [id, secret.ciphertext, secret.keyId, previous?.ciphertext ?? null, previous?.keyId ?? null],
    );
  }

  /** How many stored secrets each master key seals or wraps, across every table that holds one. */
  async usageByKey(): Promise<Map<string, number>> {
    const rows: { keyId: string; count: string }[] = await this.dataSource.query(
      `SELECT key_id AS "keyId", count(*)::text AS count FROM (
         SELECT secret_key_id AS key_id FROM managed_wallets WHERE secret_key_id IS NOT NULL
         UNION ALL SELECT new_mint_key_id FROM operations WHERE new_mint_secret IS NOT NULL
         UNION ALL SELECT secret_key_id FROM webhook_endpoints
         UNION ALL SELECT previous_secret_key_id FROM webhook_endpoints
           WHERE previous_secret_key_id IS NOT NULL
       ) used GROUP BY key_id ORDER BY key_id`,
    );
    return new Map(rows.map((row) => [row.keyId, Number(row.count)]));
  }
}
