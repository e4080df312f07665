import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { KeyedGroupWriters, METRICS, boundedText, newId, type AssetIntent } from '@app/common';
import type { NetworkDefinition } from '@app/chains';
import {
  IdempotencyRepository,
  OperationRepository,
  isDatabaseUnavailable,
  newQueuedOperation,
  type AssetDetails,
  type MetadataDocumentEntity,
  type NewOperationRow,
  type OperationEntity,
} from '@app/database';
import { OperationQueue } from '@app/queue';
import { SigningPolicies } from '../policies/signing-policies';
import { hashOf, keyWindowStart, replayedOperationId } from './idempotency-key-reuse';
import { storeThroughCut } from './store-through-cut';

export interface Submission {
  /** The operation's id when the request needs it beforehand (made here otherwise). */
  id?: string;
  accountId: string;
  network: NetworkDefinition;
  signer: string;
  intent: AssetIntent;
  details?: AssetDetails;
  /** The metadata document the operation's asset points at, stored with the operation. */
  metadata?: MetadataDocumentEntity;
}

/** What accepting a write did. */
export interface Submitted {
  operation: OperationEntity;
  /** An earlier request's operation (an idempotent replay): nothing was written now. */
  replayed: boolean;
  /**
   * False when Redis did not take the job in time: a worker cannot start the operation before
   * the reconciler enqueues it, so there is no point waiting for it to settle.
   */
  enqueued: boolean;
}

export interface IdempotencyRequest {
  key: string;
  /** Method, path and body of the request: the same key with another request is a 409. */
  fingerprint: unknown;
}

/** An account's operations stored in one statement at most. */
const MAX_INSERTS_A_WRITE = 64;

/**
 * Accepts a write: the operation row and its idempotency key in one Postgres statement, then
 * the job. If enqueueing fails the operation stays `queued` and the reconciler enqueues it.
 */
@Injectable()
export class OperationSubmitter {
  private readonly logger = new Logger(OperationSubmitter.name);
  /**
   * By account: operations that arrive while another of the account's is being stored are
   * stored together (GroupWriter), in one statement, one turn of its event lock and one commit.
   * A group cut off from Postgres is not stored again item by item, which could store one twice:
   * each request finds out what landed (storeThroughCut).
   */
  private readonly inserts = new KeyedGroupWriters<NewOperationRow, boolean>(
    (_account, entries) => this.operations.insertMany(entries),
    MAX_INSERTS_A_WRITE,
    { splits: (error) => !isDatabaseUnavailable(error) },
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operations: OperationRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly queue: OperationQueue,
    private readonly policies: SigningPolicies,
  ) {}

  /** Returns the operation, and whether it is an earlier request's (an idempotent replay). */
  async submit(submission: Submission, idempotency?: IdempotencyRequest): Promise<Submitted> {
    await this.policies.admit(submission.accountId, submission.network, submission.signer, [
      submission.intent,
    ]);
    const operation = newQueuedOperation({
      id: submission.id ?? newId(),
      accountId: submission.accountId,
      network: submission.network.network,
      chainKey: submission.network.chainKey,
      signer: submission.signer,
      intent: submission.intent,
      details: submission.details ?? {},
      metadataId: submission.metadata?.id ?? null,
    });
    const stored = {
      noun: 'operation',
      id: operation.id,
      path: `/operations/${operation.id}`,
    } as const;
    const readBack = () => this.operations.findById(operation.id);
    if (idempotency) {
      const earlier = await storeThroughCut(
        () => this.insertClaimingKey(operation, submission, idempotency),
        null,
        readBack,
        stored,
      );
      // Its first request enqueued it, or the reconciler will: as far as we know it can run.
      if (earlier) return { operation: earlier, replayed: true, enqueued: true };
    } else {
      // One statement (with its metadata document): atomic without a transaction.
      await storeThroughCut(
        () =>
          this.inserts.submit(operation.accountId, { operation, metadata: submission.metadata }),
        undefined,
        readBack,
        stored,
      );
    }
    METRICS.operations.inc({ kind: operation.kind, network: operation.network, status: 'queued' });
    this.logger.log({
      msg: 'Operation accepted',
      operationId: operation.id,
      kind: operation.kind,
      network: operation.network,
    });
    const enqueued = await this.queue.enqueue(operation).then(
      () => true,
      (error: unknown) => {
        this.logger.warn(
          `Operation ${operation.id} saved but not enqueued (${boundedText(error, 500)}); the reconciler will.`,
        );
        return false;
      },
    );
    return { operation, replayed: false, enqueued };
  }

  /**
   * The operation and its key in one statement (with other requests of the account, see
   * `inserts`); when an earlier request holds the key, nothing is written and that request's
   * operation is returned.
   */
  private async insertClaimingKey(
    operation: OperationEntity,
    submission: Submission,
    idempotency: IdempotencyRequest,
  ): Promise<OperationEntity | null> {
    const requestHash = hashOf(idempotency.fingerprint);
    const notBefore = keyWindowStart(
      operation.createdAt,
      this.config.operations.idempotencyTtlHours,
    );
    const key = {
      accountId: submission.accountId,
      key: idempotency.key,
      requestHash,
      operationId: operation.id,
      batchId: null,
      createdAt: operation.createdAt,
    };
    const claimed = await this.inserts.submit(operation.accountId, {
      operation,
      metadata: submission.metadata,
      claim: { key, retentionMs: this.config.operations.idempotencyTtlHours * 3600_000 },
    });
    if (claimed) return null;
    return this.replay(submission.accountId, idempotency.key, requestHash, notBefore);
  }

  private async replay(
    accountId: string,
    key: string,
    requestHash: string,
    notBefore: Date,
  ): Promise<OperationEntity> {
    const operationId = replayedOperationId(
      await this.idempotency.find(accountId, key, notBefore),
      requestHash,
    );
    const operation = await this.operations.findById(operationId);
    if (!operation) throw new Error(`Idempotency key points at missing operation ${operationId}`);
    return operation;
  }
}
