import { Inject, Injectable, Logger } from '@nestjs/common';
import { METRICS, boundedText, isCarrierIntent } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { NetworkRegistry, isDefinitive, unfundedPastDeadline } from '@app/chains';
import { OperationRepository, type OperationEntity } from '@app/database';
import { OperationQueue, SettlementChannel } from '@app/queue';
import { AwaitingFunds } from './awaiting-funds';
import { CHECK_ROUND_MS, CheckLater } from './check-later';
import { EvmLifecycle } from './evm/evm-lifecycle';
import { EvmUnfundedOperations } from './evm/evm-unfunded';
import { classifyFailure } from './failure-classifier';
import { pastDeadline, retriesExhausted } from './operation-deadline';
import { OperationSettler } from './operation-settler';
import { RetryLater } from './retry-later';
import { settledMessage, settlementOf } from './settlement';
import { SolanaLifecycle } from './solana/solana-lifecycle';
import type { TransactionLifecycle } from './transaction-lifecycle';

/** Retries of one operation logged as warnings; later ones at debug (one line per retry). */
const LOUD_ATTEMPTS = 3;
const LOGGED_ERROR_MAX = 1_000;
const LAST_ERROR_MAX = 500;
/** Signings one run may make (each after the previous transaction provably could not land). */
const MAX_SIGNINGS_PER_RUN = 4;

/**
 * The worker's entry point: carries one operation forward through its chain family's
 * TransactionLifecycle, settles it on the verdict, and makes sure every operation ends (see
 * `settleOrRetry`).
 */
@Injectable()
export class OperationRunner {
  private readonly logger = new Logger(OperationRunner.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operations: OperationRepository,
    private readonly networks: NetworkRegistry,
    private readonly evm: EvmLifecycle,
    private readonly evmUnfunded: EvmUnfundedOperations,
    private readonly solana: SolanaLifecycle,
    private readonly settler: OperationSettler,
    private readonly channel: SettlementChannel,
    private readonly queue: OperationQueue,
  ) {}

  /**
   * Resolves when this run is done with the operation; rejects with CheckLater when its
   * transaction has no verdict yet (the job is parked), and otherwise when the job should retry.
   */
  async run(operationId: string): Promise<void> {
    const operation = await this.operations.findById(operationId);
    if (!operation) return; // nothing to do for an id Postgres does not know
    if (operation.carrierId) return; // an airdrop's entry its carrier's job carries
    if (operation.status === 'confirmed' || operation.status === 'failed') {
      // A failed carrier's job running again: its process may have died after the split and
      // before queueing the halves; packing the batch again queues them.
      if (operation.status === 'failed' && isCarrierIntent(operation.intent)) {
        await this.queue.enqueuePack(packOf(operation));
        return;
      }
      await this.channel.publish(settledMessage(operation.id, settlementOf(operation)));
      return;
    }
    try {
      await this.execute(operation);
    } catch (error) {
      if (error instanceof CheckLater) throw error; // in flight, nothing went wrong
      await this.settleOrRetry(operation, error);
    }
  }

  /**
   * The family-agnostic pipeline: a `queued` operation is sent (signed, stored, broadcast), then
   * its transaction is checked for one round, and the verdict settles it. One released (none of
   * its transactions can land) is signed anew at once, a few times a run at most.
   */
  private async execute(initial: OperationEntity): Promise<void> {
    const network = this.networks.resolve(initial.network);
    // Each family's lifecycle takes only its own networks, which `network.family` guarantees.
    const lifecycle: TransactionLifecycle = network.family === 'evm' ? this.evm : this.solana;
    const roundEnds = Date.now() + CHECK_ROUND_MS;
    let operation = initial;
    for (let signing = 0; signing < MAX_SIGNINGS_PER_RUN; signing++) {
      let sentAfter: number | null = null;
      if (operation.status === 'queued') {
        const sending = Date.now();
        let stored: OperationEntity | null;
        try {
          stored = await lifecycle.send(network, operation);
        } catch (error) {
          // A refusal settles the operation; an unreachable RPC is a fault to retry.
          if (isDefinitive(error)) return this.settler.fail(operation, error);
          throw error;
        }
        sentAfter = stored === null ? null : sending;
        // The row as stored, or (another worker moved it first) as it now stands.
        operation = stored ?? (await this.reload(operation.id));
        if (operation.status === 'queued') continue;
      }
      if (operation.status !== 'signed' && operation.status !== 'submitted') return;

      const verdict = await lifecycle.check(network, operation, sentAfter, roundEnds);
      if (verdict.kind === 'confirmed') {
        return this.settler.confirm(operation, verdict.outcome, verdict.adoptedTxHash);
      }
      if (verdict.kind === 'failed') return this.settler.fail(operation, verdict.error);
      operation = await this.reload(operation.id);
      // Nothing of it can land any more: past the deadline it ends here, failed, instead of
      // being signed again.
      if (pastDeadline(operation.retryingSince, this.config.worker.operationDeadlineMs)) {
        if (await this.settler.failQueued(operation, retriesExhausted(operation.lastError))) return;
        operation = await this.reload(operation.id);
        continue;
      }
      this.logger.warn(`Operation ${operation.id}: ${verdict.reason}; signing it anew`);
    }
    throw new RetryLater(`Operation ${operation.id} could not be signed for good this run`);
  }

  private async reload(id: string): Promise<OperationEntity> {
    const operation = await this.operations.findById(id);
    if (!operation) throw new Error(`Operation ${id} vanished`);
    return operation;
  }

  /**
   * A run that threw. A deterministic failure (one that running again cannot change) fails the
   * operation at once; a transient one is recorded and retried, until the operation has been
   * failing for OPERATION_DEADLINE_MS, when it fails with RETRIES_EXHAUSTED (or, waiting for its
   * wallet's funds, with INSUFFICIENT_FUNDS). Only a `queued` operation is failed here, or a
   * signed one whose wallet cannot pay for it where its transaction provably cannot land (see
   * EvmUnfundedOperations): a signed transaction may still land.
   */
  private async settleOrRetry(operation: OperationEntity, error: unknown): Promise<void> {
    const verdict = classifyFailure(error);
    if (verdict.kind === 'deterministic') {
      if (await this.settler.failQueued(operation, verdict.error)) return;
    } else if (verdict.unrecognised) {
      METRICS.unrecognisedRefusals.inc({ family: 'worker', kind: 'unexpected-error' });
    }
    const reason = boundedText(
      verdict.kind === 'transient' ? verdict.reason : verdict.error.message,
      LAST_ERROR_MAX,
    );
    // Postgres unreachable: this throws, and the job's own retries are all there is.
    const retry = await this.operations.recordRetry(
      operation.id,
      reason,
      this.config.worker.operationDeadlineMs,
    );
    if (!retry) return; // settled meanwhile
    if (retry.pastDeadline && (await this.giveUp(operation, retry.status, error, reason))) return;
    // One line per retry; after the first few, at debug: a long outage must not fill the logs.
    this.logger[retry.attempts <= LOUD_ATTEMPTS ? 'warn' : 'debug']({
      msg: 'Operation will be retried',
      attempts: retry.attempts,
      status: retry.status,
      reason,
      error: boundedText(describe(error), LOGGED_ERROR_MAX),
    });
    // Waiting for funds keeps its name: the queue backs it off longer.
    throw error instanceof AwaitingFunds ? error : new RetryLater(reason, { cause: error });
  }

  /** Past its deadline: fails the operation where that is safe; false when it must go on. */
  private async giveUp(
    operation: OperationEntity,
    status: OperationEntity['status'],
    error: unknown,
    reason: string,
  ): Promise<boolean> {
    const unfunded = error instanceof AwaitingFunds;
    if (status === 'queued') {
      const final = unfunded ? unfundedPastDeadline(reason) : retriesExhausted(reason);
      return this.settler.failQueued(operation, final);
    }
    const network = this.networks.resolve(operation.network);
    return unfunded && network.family === 'evm' && this.evmUnfunded.abandon(network, operation);
  }
}

/** The packing job of a carrier's batch. */
function packOf(carrier: OperationEntity) {
  return {
    id: carrier.batchId!,
    network: carrier.network,
    accountId: carrier.accountId,
    signer: carrier.signer,
  };
}

/** The error for a log line, with the cause it wraps (what RetryLater's client text leaves out). */
function describe(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined
    ? boundedText(error, LOGGED_ERROR_MAX)
    : `${boundedText(error, LOGGED_ERROR_MAX)} (cause: ${boundedText(cause, LOGGED_ERROR_MAX)})`;
}
