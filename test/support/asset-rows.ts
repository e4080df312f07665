import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { OperationRepository } from '@app/database';
import type { AssetIntent } from '@app/common';
import { newOperationEntity } from './operation-factory';
import { scopeOf } from './work-scope';

/** An asset row on `base` for repository tests, with the operation that made it. */
export async function insertAssetRow(
  dataSource: DataSource,
  asset: { accountId: string; kind: 'token' | 'collection'; chainKey: string; address: string },
  intent: AssetIntent,
): Promise<{ id: string; operationId: string }> {
  const operation = newOperationEntity(asset.accountId, intent);
  await new OperationRepository(dataSource).insert(scopeOf(dataSource.manager), operation);
  const id = randomUUID();
  await dataSource.query(
    `INSERT INTO assets (id, account_id, kind, network, chain_key, address, owner, name, symbol,
       operation_id)
     VALUES ($1, $2, $3, 'base', $4, $5, 'owner', 'n', 'S', $6)`,
    [id, asset.accountId, asset.kind, asset.chainKey, asset.address, operation.id],
  );
  return { id, operationId: operation.id };
}
