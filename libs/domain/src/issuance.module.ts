import { Module } from '@nestjs/common';
import { AirdropService } from './airdrops/airdrop.service';
import { BatchReader } from './airdrops/batch-reader';
import { AccountService } from './accounts/account.service';
import { ApiKeyService } from './accounts/api-key.service';
import { ManagedWallets } from './accounts/managed-wallets';
import { AssetLocator } from './assets/asset-locator';
import { MetadataDocuments } from './assets/metadata-documents';
import { NftLocator } from './assets/nft-locator';
import { NftService } from './assets/nft.service';
import { TokenService } from './assets/token.service';
import { AuditReader } from './audit/audit-reader';
import { AuditTrail } from './audit/audit-trail';
import { AccountEventFeed } from './events/account-event-feed';
import { AccountEventWakeups } from './events/account-event-wakeups';
import { ChainKeyPinning } from './networks/chain-key-pinning';
import { OperationDetailReader } from './operations/operation-detail';
import { OperationReader } from './operations/operation-reader';
import { OperationSubmitter } from './operations/operation-submitter';
import { SettlementWaiter } from './operations/settlement-waiter';
import { AccountAssets } from './reads/account-assets';
import { ChainReads } from './reads/chain-reads';
import { NftQueries } from './reads/nft-queries';
import { TokenQueries } from './reads/token-queries';
import { WalletQueries } from './reads/wallet-queries';
import { secretBoxProvider } from './security/secret-box.provider';
import { SigningToken } from './security/signing-token';
import { UsageReader } from './usage/usage-reader';
import { TypicalOperationCosts } from './wallets/typical-operation-costs';
import { WalletService } from './wallets/wallet.service';
import { WebhookEndpoints } from './webhooks/webhook-endpoints.service';
import { WebhookUrlPolicy } from './webhooks/webhook-url-policy';
import { SigningPolicies } from './policies/signing-policies';

const SERVICES = [
  // the chains' keys, before anything reads one
  ChainKeyPinning,
  // accounts, keys and wallets
  AccountService,
  ApiKeyService,
  ManagedWallets,
  SigningToken,
  WalletService,
  TypicalOperationCosts,
  SigningPolicies,
  // writes: validated, stored, queued
  AssetLocator,
  MetadataDocuments,
  TokenService,
  NftService,
  NftLocator,
  AirdropService,
  OperationSubmitter,
  SettlementWaiter,
  // reads
  BatchReader,
  ChainReads,
  TokenQueries,
  NftQueries,
  AccountAssets,
  WalletQueries,
  OperationReader,
  OperationDetailReader,
  AuditTrail,
  AuditReader,
  UsageReader,
  AccountEventFeed,
  AccountEventWakeups,
  WebhookEndpoints,
  WebhookUrlPolicy,
];

/**
 * What the API needs: accounts, keys and wallets, the writes (validated, stored and queued, never
 * signed here) and every read. Needs ConfigModule, DatabaseModule, QueueModule and ChainsModule
 * from the app. The worker's side is ExecutionModule.
 */
@Module({
  providers: [secretBoxProvider, ...SERVICES],
  exports: [secretBoxProvider, ...SERVICES],
})
export class IssuanceModule {}
