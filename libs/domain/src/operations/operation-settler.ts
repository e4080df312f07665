import { Injectable, Logger } from '@nestjs/common';
import {
  AppError,
  BoundedCache,
  KeyedGroupWriters,
  METRICS,
  boundedText,
  isCarrierIntent,
  newId,
  type AssetOutcome,
  type ErrorCode,
} from '@app/common';
import {
  AssetRepository,
  OperationRepository,
  SettlementRepository,
  confirmsInGroup,
  type AssetEntity,
  type AssetWrite,
  type Confirmation,
  type OperationEntity,
  type WorkScope,
} from '@app/database';
import { ChainRejection } from '@app/chains';
import { SettlementChannel } from '@app/queue';
import { BatchSettler } from '../airdrops/batch-settler';
import { WalletFundsMonitor } from '../wallets/wallet-funds-monitor';
import { outcomeToStore } from './operation-view';
import { settledMessage, settlementOf } from './settlement';

/** Node refusals and revert reasons can be long; the client gets at most this much of one. */
const MAX_ERROR_MESSAGE = 500;
/** An account's operations confirmed in one statement at most. */
const MAX_CONFIRMATIONS_A_WRITE = 64;

/**
 * The last step of an operation: its confirmation with the asset rows it produced, atomically
 * (or its failure), then the news on the settlement channel.
 */
@Injectable()
export class OperationSettler {
  private readonly logger = new Logger(OperationSettler.name);
  private readonly collections = new BoundedCache<AssetEntity>();
  /**
   * By account: confirmations that arrive while another of the account's is being written are
   * written together (GroupWriter), in one statement. An account's confirmations each took its
   * event lock in turn, one commit apiece, while the rest waited on that lock anyway.
   */
  private readonly confirmations = new KeyedGroupWriters<Confirmation, boolean>(
    (_account, confirmations) => this.settlements.confirmMany(confirmations),
    MAX_CONFIRMATIONS_A_WRITE,
  );

  constructor(
    private readonly operations: OperationRepository,
    private readonly settlements: SettlementRepository,
    private readonly assets: AssetRepository,
    private readonly channel: SettlementChannel,
    private readonly funds: WalletFundsMonitor,
    private readonly batches: BatchSettler,
  ) {}

  /** `landedTxHash`: the operation's transaction that landed, when not the last one it signed. */
  async confirm(
    operation: OperationEntity,
    outcome: AssetOutcome,
    landedTxHash?: string,
  ): Promise<void> {
    if (isCarrierIntent(operation.intent)) {
      return this.batches.confirm(operation, outcome, landedTxHash);
    }
    const collection = await this.collectionOf(operation);
    const write = assetWrite(operation, outcome, collection);
    const result = outcomeToStore(operation, outcome);
    const confirmation = { id: operation.id, result, write, landedTxHash };
    const confirmed = confirmsInGroup(write)
      ? await this.confirmations.submit(operation.accountId, confirmation)
      : await this.settlements.confirm(operation.id, result, write, landedTxHash);
    const txHash = landedTxHash ?? operation.txHash;
    await this.announce(
      operation.id,
      confirmed ? { ...operation, status: 'confirmed', result: outcome, txHash } : null,
    );
    await this.batches.memberSettled(operation);
  }

  async fail(operation: OperationEntity, error: AppError): Promise<void> {
    if (isCarrierIntent(operation.intent)) {
      await this.batches.fail(operation, error);
      return;
    }
    // Its wallet could not pay: read its balance now, so a low balance is announced at once.
    if (error.code === 'INSUFFICIENT_FUNDS')
      this.funds.checkSoon(operation.network, operation.signer);
    const reason = failureOf(error);
    const failed = await this.operations.fail(operation.id, reason);
    await this.announce(operation.id, failed ? failedRow(operation, reason) : null, error);
    await this.batches.memberSettled(operation);
  }

  /**
   * Fails the operation within the transaction of `scope` (whose caller holds what makes the
   * failure safe, such as its wallet's lock); returns the announcement to make once committed.
   */
  async failWithin(
    scope: WorkScope,
    operation: OperationEntity,
    error: AppError,
  ): Promise<() => Promise<void>> {
    if (isCarrierIntent(operation.intent)) return this.batches.failWithin(scope, operation, error);
    const reason = failureOf(error);
    const failed = await this.operations.fail(operation.id, reason, scope);
    return async () => {
      await this.announce(operation.id, failed ? failedRow(operation, reason) : null, error);
      await this.batches.memberSettled(operation);
    };
  }

  /**
   * Fails the operation only while it is `queued`: nothing of it is signed, so nothing can still
   * land. False (and nothing announced) when it was signed or settled first: it goes on.
   */
  async failQueued(operation: OperationEntity, error: AppError): Promise<boolean> {
    if (isCarrierIntent(operation.intent)) {
      return this.batches.fail(operation, error, { onlyQueued: true });
    }
    const reason = failureOf(error);
    const failed = await this.operations.failQueued(operation.id, reason);
    if (failed) {
      await this.announce(operation.id, failedRow(operation, reason), error);
      await this.batches.memberSettled(operation);
    }
    return failed;
  }

  /**
   * Counts, logs and publishes a settlement this worker wrote (`settled`, the row as written);
   * null when another worker had settled it first, whose waiters then read Postgres. A failure
   * the chain decided logs what the chain said (`error`'s detail): the client's message is plain.
   */
  private async announce(
    id: string,
    settled: OperationEntity | null,
    error?: AppError,
  ): Promise<void> {
    if (!settled) return this.channel.publish(settledMessage(id));
    const { kind, network, status } = settled;
    METRICS.operations.inc({ kind, network, status });
    const fields = { operationId: id, kind, network, txHash: settled.txHash };
    if (status === 'confirmed') {
      this.logger.log({ msg: 'Operation confirmed', ...fields });
    } else {
      const { errorCode, errorMessage } = settled;
      const chainError = error instanceof ChainRejection ? error.detail : undefined;
      this.logger.warn({ msg: 'Operation failed', ...fields, errorCode, errorMessage, chainError });
    }
    await this.channel.publish(settledMessage(id, settlementOf(settled)));
  }

  private async collectionOf(operation: OperationEntity): Promise<AssetEntity | null> {
    const intent = operation.intent;
    if (
      intent.kind !== 'nft.mint' &&
      intent.kind !== 'nft.transfer' &&
      intent.kind !== 'nft.burn'
    ) {
      return null;
    }
    const collection = await this.collections.getOrLoad(
      `${operation.chainKey}|${intent.collection}`,
      () => this.assets.findAsset(operation.chainKey, intent.collection),
    );
    if (!collection) throw new Error(`Collection ${intent.collection} is not recorded`);
    return collection;
  }
}

/** What the operation row keeps of an error: its code, and a message of bounded length. */
function failureOf(error: AppError): { code: ErrorCode; message: string } {
  return { code: error.code, message: boundedText(error.message, MAX_ERROR_MESSAGE) };
}

function failedRow(
  operation: OperationEntity,
  reason: { code: ErrorCode; message: string },
): OperationEntity {
  return { ...operation, status: 'failed', errorCode: reason.code, errorMessage: reason.message };
}

/** The asset rows a confirmed operation produces or changes. */
function assetWrite(
  operation: OperationEntity,
  outcome: AssetOutcome,
  collection: AssetEntity | null,
): AssetWrite {
  const intent = operation.intent;
  const base = {
    accountId: operation.accountId,
    network: operation.network,
    chainKey: operation.chainKey,
    owner: operation.signer,
    metadataId: operation.metadataId,
    details: operation.details,
    operationId: operation.id,
    createdAt: new Date(),
  };
  switch (intent.kind) {
    case 'token.create':
    case 'nft.create':
      return {
        kind: 'insert-asset',
        row: {
          ...base,
          id: newId(),
          kind: intent.kind === 'token.create' ? 'token' : 'collection',
          address: required(outcome.mintAddress, 'mint address'),
          name: intent.name,
          symbol: intent.symbol,
          decimals: intent.kind === 'token.create' ? intent.decimals : 0,
          metadataUri: intent.metadataUri || null,
        },
      };
    case 'nft.mint':
      return {
        kind: 'insert-item',
        row: {
          id: newId(),
          collectionId: required(collection?.id, 'collection'),
          tokenId: required(outcome.tokenId, 'token id'),
          mintAddress: required(outcome.mintAddress, 'mint address'),
          owner: intent.recipient,
          burned: false,
          name: intent.name,
          metadataId: operation.metadataId,
          metadataUri: intent.metadataUri,
          details: operation.details,
          operationId: operation.id,
          createdAt: new Date(),
        },
      };
    case 'nft.transfer':
    case 'nft.burn':
      return {
        kind: 'update-item',
        collectionId: required(collection?.id, 'collection'),
        tokenId: intent.tokenId,
        change: intent.kind === 'nft.burn' ? { burned: true } : { owner: intent.recipient },
      };
    case 'token.mint':
    case 'token.burn':
    case 'token.transfer':
      return { kind: 'none' }; // balances and supply are read from the chain
    case 'token.mintBatch':
    case 'nft.mintBatch':
      throw new Error(`A carrier (${intent.kind}) is settled by its batch`); // TODO(airdrops)
  }
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`Confirmed operation without a ${what}`);
  return value;
}
