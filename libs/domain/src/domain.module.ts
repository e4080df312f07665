import { Module } from '@nestjs/common';
import { AccountService } from './accounts/account.service';
import { ApiKeyService } from './accounts/api-key.service';
import { ManagedWallets } from './accounts/managed-wallets';
import { AssetLocator } from './assets/asset-locator';
import { AuditReader } from './audit/audit-reader';
import { AuditTrail } from './audit/audit-trail';
import { AccountEventFeed } from './events/account-event-feed';
import { AccountEventWakeups } from './events/account-event-wakeups';
import { MetadataDocuments } from './assets/metadata-documents';
import { NftLocator } from './assets/nft-locator';
import { NftService } from './assets/nft.service';
import { TokenService } from './assets/token.service';
import { EvmOperationExecutor } from './operations/evm/evm-operation.executor';
import { EvmNonceGaps } from './operations/evm/evm-nonce-gaps';
import { EvmUnfundedOperations } from './operations/evm/evm-unfunded';
import { EvmSendPipeline } from './operations/evm/evm-send-pipeline';
import { FaultInjection } from './operations/fault-injection';
import { WalletSecrets } from './operations/wallet-secrets';
import { OperationDetailReader } from './operations/operation-detail';
import { OperationReader } from './operations/operation-reader';
import { OperationRunner } from './operations/operation-runner';
import { OperationSettler } from './operations/operation-settler';
import { OperationSubmitter } from './operations/operation-submitter';
import { Reconciler } from './operations/reconciler';
import { SolanaOperationExecutor } from './operations/solana/solana-operation.executor';
import { SettlementWaiter } from './operations/settlement-waiter';
import { AccountAssets } from './reads/account-assets';
import { ChainReads } from './reads/chain-reads';
import { NftQueries } from './reads/nft-queries';
import { TokenQueries } from './reads/token-queries';
import { WalletQueries } from './reads/wallet-queries';
import { secretBoxProvider } from './security/secret-box.provider';
import { UsageReader } from './usage/usage-reader';
import { WalletService } from './wallets/wallet.service';
import { WalletFundsMonitor } from './wallets/wallet-funds-monitor';
import { WalletFundsRecorder } from './wallets/wallet-funds-recorder';
import { TypicalOperationCosts } from './wallets/typical-operation-costs';
import { WebhookEndpoints } from './webhooks/webhook-endpoints.service';
import { WebhookPump } from './webhooks/webhook-pump';
import { WebhookSender } from './webhooks/webhook-sender';
import { WebhookUrlPolicy } from './webhooks/webhook-url-policy';

const SERVICES = [
  AccountService,
  ApiKeyService,
  ManagedWallets,
  WalletService,
  WalletFundsRecorder,
  WalletFundsMonitor,
  TypicalOperationCosts,
  AssetLocator,
  MetadataDocuments,
  TokenService,
  NftService,
  NftLocator,
  ChainReads,
  TokenQueries,
  NftQueries,
  AccountAssets,
  WalletQueries,
  OperationSubmitter,
  OperationReader,
  OperationDetailReader,
  SettlementWaiter,
  OperationRunner,
  OperationSettler,
  EvmOperationExecutor,
  EvmNonceGaps,
  EvmUnfundedOperations,
  EvmSendPipeline,
  SolanaOperationExecutor,
  WalletSecrets,
  FaultInjection,
  Reconciler,
  AuditTrail,
  AuditReader,
  UsageReader,
  AccountEventFeed,
  AccountEventWakeups,
  WebhookEndpoints,
  WebhookUrlPolicy,
  WebhookSender,
  WebhookPump,
];

/** The use cases. Needs ConfigModule, DatabaseModule, QueueModule and ChainsModule from the app. */
@Module({
  providers: [secretBoxProvider, ...SERVICES],
  exports: [secretBoxProvider, ...SERVICES],
})
export class DomainModule {}
