import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source';
import { PgNotifications } from './pg-notifications';
import { UnitOfWork } from './unit-of-work';
import { AccountAssetsRepository } from './repositories/account-assets.repository';
import { OperationUsageRepository } from './repositories/operation-usage.repository';
import { AccountRepository } from './repositories/account.repository';
import { AssetRepository } from './repositories/asset.repository';
import { ChainKeyRepository } from './repositories/chain-key.repository';
import { BatchRepository } from './repositories/batch.repository';
import { IdempotencyRepository } from './repositories/idempotency.repository';
import { NonceLedgerRepository } from './repositories/nonce-ledger.repository';
import { OperationRepository } from './repositories/operation.repository';
import { ApiKeyRepository } from './repositories/api-key.repository';
import { CreatedWalletRepository } from './repositories/created-wallet.repository';
import { ManagedWalletRepository } from './repositories/managed-wallet.repository';
import { SealedSecretsRepository } from './repositories/sealed-secrets.repository';
import { SessionRepository } from './repositories/session.repository';
import { SettlementRepository } from './repositories/settlement.repository';
import { SolanaOperationRepository } from './repositories/solana-operation.repository';
import { AuditEventRepository } from './repositories/audit-event.repository';
import { AccountEventRepository } from './repositories/account-event.repository';
import { WebhookDeliveryRepository } from './repositories/webhook-delivery.repository';
import { WebhookEndpointRepository } from './repositories/webhook-endpoint.repository';
import { WalletFundsRepository } from './repositories/wallet-funds.repository';
import { SigningPolicyRepository } from './repositories/signing-policy.repository';

const REPOSITORIES = [
  AccountRepository,
  SessionRepository,
  ApiKeyRepository,
  ManagedWalletRepository,
  SealedSecretsRepository,
  CreatedWalletRepository,
  OperationRepository,
  IdempotencyRepository,
  NonceLedgerRepository,
  AssetRepository,
  ChainKeyRepository,
  BatchRepository,
  SolanaOperationRepository,
  SettlementRepository,
  AuditEventRepository,
  AccountEventRepository,
  WebhookEndpointRepository,
  WebhookDeliveryRepository,
  WalletFundsRepository,
  SigningPolicyRepository,
  PgNotifications,
  AccountAssetsRepository,
  OperationUsageRepository,
  UnitOfWork,
];

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        dataSourceOptions(
          config.databaseUrl,
          config.databasePoolSize,
          config.databaseConnectTimeoutMs,
          config.databasePreparedStatements,
        ),
    }),
  ],
  providers: REPOSITORIES,
  exports: REPOSITORIES,
})
export class DatabaseModule {}
