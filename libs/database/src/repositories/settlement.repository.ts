import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UNSETTLED_STATUSES, type AssetOutcome } from '@app/common';
import { AssetEntity, NftItemEntity } from '../entities';
import { insertParts } from './insert-statement';
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
}
