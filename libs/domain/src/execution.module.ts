import { Module } from '@nestjs/common';
import { AirdropPacker } from './airdrops/airdrop-packer';
import { BatchSettler } from './airdrops/batch-settler';
import { MetadataDocuments } from './assets/metadata-documents';
import { ChainKeyPinning } from './networks/chain-key-pinning';
import { EvmNonceGaps } from './operations/evm/evm-nonce-gaps';
import { EvmLifecycle } from './operations/evm/evm-lifecycle';
import { EvmRepricing } from './operations/evm/evm-repricing';
import { EvmSendPipeline } from './operations/evm/evm-send-pipeline';
import { EvmUnfundedOperations } from './operations/evm/evm-unfunded';
import { FaultInjection } from './operations/fault-injection';
import { OperationRunner } from './operations/operation-runner';
import { OperationSettler } from './operations/operation-settler';
import { Reconciler } from './operations/reconciler';
import { SolanaLifecycle } from './operations/solana/solana-lifecycle';
import { WalletKeys } from './operations/wallet-keys';
import { SigningToken } from './security/signing-token';
import { secretBoxProvider } from './security/secret-box.provider';
import { WalletFundsMonitor } from './wallets/wallet-funds-monitor';
import { WalletFundsRecorder } from './wallets/wallet-funds-recorder';
import { WebhookPump } from './webhooks/webhook-pump';
import { WebhookSender } from './webhooks/webhook-sender';
import { AuditTrail } from './audit/audit-trail';
import { SigningPolicies } from './policies/signing-policies';

/** What the worker's processors and loops call. */
const ENTRY_POINTS = [OperationRunner, AirdropPacker, Reconciler, WalletFundsMonitor, WebhookPump];

/**
 * What the worker needs: carrying operations to the chain and back (signing, sending, checking,
 * settling), the reconciler, wallet funds and webhook deliveries. Needs ConfigModule,
 * DatabaseModule, QueueModule and ChainsModule from the app. The API's side is IssuanceModule.
 */
@Module({
  providers: [
    ChainKeyPinning,
    secretBoxProvider,
    ...ENTRY_POINTS,
    OperationSettler,
    BatchSettler,
    MetadataDocuments,
    EvmLifecycle,
    EvmSendPipeline,
    EvmNonceGaps,
    EvmRepricing,
    EvmUnfundedOperations,
    SolanaLifecycle,
    WalletKeys,
    SigningToken,
    SigningPolicies,
    AuditTrail,
    FaultInjection,
    WalletFundsRecorder,
    WebhookSender,
  ],
  exports: ENTRY_POINTS,
})
export class ExecutionModule {}
