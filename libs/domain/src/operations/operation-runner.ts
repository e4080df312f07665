import { Inject, Injectable, Logger } from '@nestjs/common';
import { METRICS, boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { NetworkRegistry, unfundedPastDeadline } from '@app/chains';
import { OperationRepository, type OperationEntity } from '@app/database';
import { SettlementChannel } from '@app/queue';
import { AwaitingFunds } from './awaiting-funds';
import { CheckLater } from './check-later';
import { EvmOperationExecutor } from './evm/evm-operation.executor';
import { EvmUnfundedOperations } from './evm/evm-unfunded';
import { classifyFailure } from './failure-classifier';
import { retriesExhausted } from './operation-deadline';
import { OperationSettler } from './operation-settler';
import { RetryLater } from './retry-later';
import { settledMessage, settlementOf } from './settlement';
import { SolanaOperationExecutor } from './solana/solana-operation.executor';

/** Retries of one operation logged as warnings; later ones at debug (one line per retry). */
const LOUD_ATTEMPTS = 3;
const LOGGED_ERROR_MAX = 1_000;
const LAST_ERROR_MAX = 500;

/**
 * The worker's entry point: carries one operation forward, by its chain family, and makes sure
 * every operation ends (see `settleOrRetry`).
 */
@Injectable()
export class OperationRunner {
  private readonly logger = new Logger(OperationRunner.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operations: OperationRepository,
    private readonly networks: NetworkRegistry,
    private readonly evm: EvmOperationExecutor,
    private readonly evmUnfunded: EvmUnfundedOperations,
    private readonly solana: SolanaOperationExecutor,
    private readonly settler: OperationSettler,
    private readonly channel: SettlementChannel,
  ) {}

  /**
   * Resolves when this run is done with the operation; rejects with CheckLater when its
   * transaction has no verdict yet (the job is parked), and otherwise when the job should retry.
   */
  async run(operationId: string): Promise<void> {
    const operation = await this.operations.findById(operationId);
    if (!operation) return; // nothing to do for an id Postgres does not know
    if (operation.status === 'confirmed' || operation.status === 'failed') {
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

  private execute(operation: OperationEntity): Promise<void> {
    const network = this.networks.resolve(operation.network);
    switch (network.family) {
      case 'evm':
        return this.evm.execute(network, operation);
      case 'solana':
        return this.solana.execute(network, operation);
    }
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

/** The error for a log line, with the cause it wraps (what RetryLater's client text leaves out). */
function describe(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined
    ? boundedText(error, LOGGED_ERROR_MAX)
    : `${boundedText(error, LOGGED_ERROR_MAX)} (cause: ${boundedText(cause, LOGGED_ERROR_MAX)})`;
}
