import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { AssetEntity } from './asset.entity';
import { BatchEntity } from './batch.entity';
import { CreatedWalletEntity } from './created-wallet.entity';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { ManagedWalletEntity } from './managed-wallet.entity';
import { MetadataDocumentEntity } from './metadata-document.entity';
import { NftItemEntity } from './nft-item.entity';
import { OperationEntity } from './operation.entity';
import { SessionEntity } from './session.entity';

export type { AssetDetails } from './asset.entity';
export type { BatchKind, StoredBatchStatus } from './batch.entity';
export { newQueuedOperation } from './operation.entity';
export {
  AccountEntity,
  ApiKeyEntity,
  AssetEntity,
  BatchEntity,
  CreatedWalletEntity,
  IdempotencyKeyEntity,
  ManagedWalletEntity,
  MetadataDocumentEntity,
  NftItemEntity,
  OperationEntity,
  SessionEntity,
};

export const ENTITIES = [
  AccountEntity,
  SessionEntity,
  ApiKeyEntity,
  ManagedWalletEntity,
  CreatedWalletEntity,
  OperationEntity,
  IdempotencyKeyEntity,
  MetadataDocumentEntity,
  AssetEntity,
  NftItemEntity,
  BatchEntity,
];
