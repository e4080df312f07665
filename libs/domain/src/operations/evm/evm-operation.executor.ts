import { Inject, Injectable } from '@nestjs/common';
import type { TransactionReceipt } from 'ethers';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  EvmAdapter,
  evmOutcome,
  isDefinitive,
  planEvmCall,
  type EvmNetworkDefinition,
} from '@app/chains';
import { OperationRepository, type OperationEntity } from '@app/database';
import { OperationSettler } from '../operation-settler';
import { RetryLater } from '../retry-later';
import { EvmSendPipeline } from './evm-send-pipeline';

const RECEIPT_POLL_MS = [0, 10, 20, 40, 80, 160, 320, 500];
const CONFIRM_PATIENCE_MS = 120_000;

/**
 * Carries an EVM operation from wherever it stands to settlement. Safe to run twice, in two
 * processes, or after a crash at any point: a stored signed transaction is only ever re-sent,
 * never replaced by a new signature.
 */
@Injectable()
export class EvmOperationExecutor {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly pipeline: EvmSendPipeline,
    private readonly settler: OperationSettler,
  ) {}

  async execute(network: EvmNetworkDefinition, initial: OperationEntity): Promise<void> {
    let operation = initial;
    if (operation.status === 'queued') {
      let call;
      try {
        call = await planEvmCall(this.evm.provider(network), operation.signer, operation.intent);
      } catch (error) {
        if (isDefinitive(error)) return this.settler.fail(operation, error);
        throw error;
      }
      let stored: OperationEntity | null;
      try {
        stored = await this.pipeline.send(network, operation, call);
      } catch (error) {
        if (isDefinitive(error)) return this.settler.fail(operation, error);
        throw error;
      }
      operation = stored ?? (await this.reload(operation.id));
    }
    if (operation.status === 'queued') throw new RetryLater('Operation went back to the queue');
    if (operation.status !== 'signed' && operation.status !== 'submitted') return;

    let receipt: TransactionReceipt;
    try {
      receipt = await this.awaitReceipt(network, operation);
    } catch (error) {
      if (!(error instanceof ReplacedTransaction)) throw error;
      // Provably dead: its nonce is spent by another transaction, so these bytes can never
      // land. Only now may the operation be signed anew.
      await this.operations.releaseSigned(this.operations.manager(), operation.id);
      throw new RetryLater('Transaction replaced; signing the operation again');
    }
    if (receipt.status === 1) {
      return this.settler.confirm(operation, evmOutcome(operation.intent, receipt));
    }
    const reason = await this.evm.revertReason(
      network,
      operation.signer,
      operation.intent,
      receipt,
    );
    return this.settler.fail(operation, reason);
  }

  /**
   * Polls for the receipt of the stored transaction. A `signed` operation may never have been
   * broadcast (a crash), so its bytes go out first; later, the same bytes are re-sent whenever
   * the node seems to have dropped them.
   */
  private async awaitReceipt(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
  ): Promise<TransactionReceipt> {
    const hash = operation.txHash!;
    let lastSent = operation.status === 'signed' ? 0 : Date.now();
    const started = Date.now();
    for (let attempt = 0; Date.now() - started < CONFIRM_PATIENCE_MS; attempt++) {
      const receipt = await this.evm.receipt(network, hash);
      if (receipt) return receipt;
      if (Date.now() - lastSent >= (lastSent === 0 ? 0 : this.config.worker.rebroadcastAfterMs)) {
        const result = await this.evm.broadcast(network, operation.signedTx!);
        lastSent = Date.now();
        if (result.kind === 'accepted') await this.operations.markSubmitted(operation.id);
        if (result.kind === 'nonce-used') {
          const landed = await this.evm.receipt(network, hash);
          if (landed) return landed;
          // The nonce was spent by another transaction: ours can never land, and nothing ran.
          throw new ReplacedTransaction();
        }
      }
      await sleep(RECEIPT_POLL_MS[Math.min(attempt, RECEIPT_POLL_MS.length - 1)]);
    }
    throw new RetryLater(`No receipt for ${hash} yet`);
  }

  private async reload(id: string): Promise<OperationEntity> {
    const operation = await this.operations.findById(id);
    if (!operation) throw new Error(`Operation ${id} vanished`);
    return operation;
  }
}

class ReplacedTransaction extends RetryLater {
  constructor() {
    super('The nonce was used by another transaction');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
