import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { CreatedWalletEntity } from './created-wallet.entity';
import { ManagedWalletEntity } from './managed-wallet.entity';
import { SessionEntity } from './session.entity';

export { AccountEntity, ApiKeyEntity, CreatedWalletEntity, ManagedWalletEntity, SessionEntity };

export const ENTITIES = [
  AccountEntity,
  SessionEntity,
  ApiKeyEntity,
  ManagedWalletEntity,
  CreatedWalletEntity,
];
