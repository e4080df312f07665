import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UNSETTLED_STATUSES, type AssetOutcome } from '@app/common';
import { AssetEntity, NftItemEntity } from '../entities';
import { insertManyStatement, insertParts } from './insert-statement';
import { SECRET_DROPPED } from './settled-secret';

/** The asset rows a confirmed operation produces or changes. */
export type AssetWrite =
  | { kind: 'insert-asset'; row: AssetEntity }
  | { kind: 'insert-item'; row: NftItemEntity }
  | {
      kind: 'update-item';
      collectionId: string;
      tokenId: string;
      change: Partial<Pick<NftItemEntity, 'owner' | 'burned'>>;
    }
  | { kind: 'none' };

/** An operation to confirm: what it produced, its asset write, and the transaction that landed. */
export interface Confirmation {
  id: string;
  result: AssetOutcome;
  write: AssetWrite;
  landedTxHash?: string;
}

/**
 * Whether a confirmation can share its statement with others (`confirmMany`). An item's change
 * cannot: two changes of one item in one UPDATE would apply only one of them.
 */
export function confirmsInGroup(write: AssetWrite): boolean {
  return write.kind !== 'update-item';
}

/**
 * Confirms an operation together with its asset rows in one statement (data-modifying CTEs):
 * both or neither, in a single round trip instead of a four-statement transaction. The asset
 * write runs only if the operation was still unsettled, so confirming twice writes once.
 */
@Injectable()
export class SettlementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * False when the operation had already settled (nothing written). `landedTxHash`: the
   * transaction that landed, when it is not the one the operation last signed (an earlier fee
   * version was mined); it must be one of the operation's own (a foreign key holds that).
   */
  async confirm(
    id: string,
    result: AssetOutcome,
    write: AssetWrite,
    landedTxHash?: string,
  ): Promise<boolean> {
    const now = new Date();
    const params: unknown[] = [
      JSON.stringify(result),
      now,
      id,
      UNSETTLED_STATUSES,
      landedTxHash ?? null,
    ];
    const confirm = `UPDATE operations
      SET status = 'confirmed', result = $1::jsonb, updated_at = $2, settled_at = $2,
        tx_hash = COALESCE($5::text, tx_hash), ${SECRET_DROPPED}
      WHERE id = $3 AND status = ANY($4::text[])
      RETURNING id`;
    let sql: string;
    switch (write.kind) {
      case 'none':
        // Wrapped, so that the result is rows whatever the statement (TypeORM hands back
        // [rows, count] for a bare UPDATE).
        sql = `WITH confirmed AS (${confirm}) SELECT id FROM confirmed`;
        break;
      case 'insert-asset':
      case 'insert-item': {
        const entity = write.kind === 'insert-asset' ? AssetEntity : NftItemEntity;
        const { table, columns, values } = insertParts(this.dataSource, entity, write.row, params);
        sql = `WITH confirmed AS (${confirm})
          INSERT INTO "${table}" (${columns}) SELECT ${values} FROM confirmed RETURNING 1`;
        break;
      }
      case 'update-item':
        params.push(write.change.owner ?? null, write.change.burned ?? null);
        params.push(write.collectionId, write.tokenId);
        sql = `WITH confirmed AS (${confirm}), changed AS (
            UPDATE nft_items SET owner = COALESCE($6::text, owner),
              burned = COALESCE($7::boolean, burned)
            WHERE collection_id = $8 AND token_id = $9 AND EXISTS (SELECT 1 FROM confirmed))
          SELECT id FROM confirmed`;
        break;
    }
    const rows: unknown[] = await this.dataSource.query(sql, params);
    return rows.length === 1;
  }

  /**
   * Confirms many operations (each `confirmsInGroup`) with their asset rows in one statement: one
   * round trip, one turn of each account's event lock and one commit for all. For each, false
   * when it had already settled (nothing written for it). All or none: one that cannot be
   * written (a duplicate item) fails the statement, whose caller then confirms each alone.
   */
  async confirmMany(confirmations: Confirmation[]): Promise<boolean[]> {
    if (confirmations.length === 1) {
      const [{ id, result, write, landedTxHash }] = confirmations;
      return [await this.confirm(id, result, write, landedTxHash)];
    }
    const ids = confirmations.map((confirmation) => confirmation.id);
    const params: unknown[] = [
      ids,
      confirmations.map((confirmation) => JSON.stringify(confirmation.result)),
      confirmations.map((confirmation) => confirmation.landedTxHash ?? null),
      UNSETTLED_STATUSES,
      new Date(),
    ];
    const inserts = [
      this.insertOfConfirmed(AssetEntity, 'insert-asset', confirmations, params),
      this.insertOfConfirmed(NftItemEntity, 'insert-item', confirmations, params),
    ].filter((insert) => insert !== null);
    // `o.id = ANY($1)` lets the planner find the rows by key (see BatchRepository.insertCarriers).
    const sql = `WITH confirmed AS (UPDATE operations o
        SET status = 'confirmed', result = c.result, updated_at = $5, settled_at = $5,
          tx_hash = COALESCE(c.landed_tx_hash, o.tx_hash), ${SECRET_DROPPED}
        FROM unnest($1::uuid[], $2::jsonb[], $3::text[]) AS c(id, result, landed_tx_hash)
        WHERE o.id = c.id AND o.id = ANY($1::uuid[]) AND o.status = ANY($4::text[])
        RETURNING o.id)
      ${inserts.map((insert, i) => `, written_${i} AS (${insert})`).join('\n')}
      SELECT id FROM confirmed`;
    const rows: { id: string }[] = await this.dataSource.query(sql, params);
    const confirmed = new Set(rows.map((row) => row.id));
    return ids.map((id) => confirmed.has(id));
  }

  /** The rows of `kind` among the confirmations, inserted for those confirmed; null if none. */
  private insertOfConfirmed<T extends AssetEntity | NftItemEntity>(
    entity: new () => T,
    kind: 'insert-asset' | 'insert-item',
    confirmations: Confirmation[],
    params: unknown[],
  ): string | null {
    const rows = confirmations.flatMap(({ write }) => (write.kind === kind ? [write.row] : []));
    if (rows.length === 0) return null;
    return insertManyStatement(
      this.dataSource,
      entity,
      rows as T[],
      params,
      'r."operation_id" IN (SELECT id FROM confirmed)',
    );
  }
}
