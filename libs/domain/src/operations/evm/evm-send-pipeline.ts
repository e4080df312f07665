import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type QueryRunner } from 'typeorm';
import { AppError } from '@app/common';
import { EvmAdapter, type EvmCall, type EvmNetworkDefinition, type FeeFields } from '@app/chains';
import { NonceLedgerRepository, OperationRepository, type OperationEntity } from '@app/database';
import { FaultInjection } from '../fault-injection';
import { ManagedSigner } from '../managed-signer';

const MAX_BATCH = 200;
const MAX_FILLERS = 64;

interface PendingSend {
  operation: OperationEntity;
  call: EvmCall;
  done: (error?: Error) => void;
}

interface SignedSend extends PendingSend {
  nonce: bigint;
  signedTx: string;
  hash: string;
}

/**
 * Signs and broadcasts a wallet's transactions in nonce order, across every worker process.
 *
 * Within a process, sends of one wallet join a queue drained by one loop; across processes, a
 * Postgres advisory lock per (chain, wallet) is held while a batch is numbered, signed, stored
 * and broadcast. So nonces are allocated atomically, the signed bytes are in Postgres before
 * they leave, sends go out in nonce order, and a refused send is rolled back while no later
 * nonce exists yet: no gap. Receipts are awaited outside the lock, so a wallet's operations are
 * pipelined rather than one receipt at a time.
 */
@Injectable()
export class EvmSendPipeline {
  private readonly logger = new Logger(EvmSendPipeline.name);
  private readonly queues = new Map<string, PendingSend[]>();
  private readonly draining = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly ledger: NonceLedgerRepository,
    private readonly signer: ManagedSigner,
    private readonly faults: FaultInjection,
  ) {}

  /**
   * Resolves once the operation is signed and stored (and, unless the node was unreachable,
   * broadcast); rejects with an AppError when the node refused it for good.
   */
  send(network: EvmNetworkDefinition, operation: OperationEntity, call: EvmCall): Promise<void> {
    const wallet = `${network.chainKey}|${operation.signer}`;
    return new Promise<void>((resolve, reject) => {
      const queue = this.queues.get(wallet) ?? [];
      this.queues.set(wallet, queue);
      queue.push({ operation, call, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.draining.has(wallet)) void this.drain(wallet, network);
    });
  }

  private async drain(wallet: string, network: EvmNetworkDefinition): Promise<void> {
    this.draining.add(wallet);
    try {
      for (;;) {
        const queue = this.queues.get(wallet);
        if (!queue || queue.length === 0) break;
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const retry = await this.withWalletLock(wallet, (runner) =>
            this.sendBatch(runner, network, batch),
          );
          if (retry.length) queue.unshift(...retry);
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const item of batch) item.done(failure);
        }
      }
    } finally {
      this.draining.delete(wallet);
      this.queues.delete(wallet);
    }
  }

  private async withWalletLock<T>(
    wallet: string,
    work: (runner: QueryRunner) => Promise<T>,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', [wallet]);
      try {
        return await work(runner);
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [wallet]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Returns the sends to try again with fresh nonces (those after a refused one). */
  private async sendBatch(
    runner: QueryRunner,
    network: EvmNetworkDefinition,
    batch: PendingSend[],
  ): Promise<PendingSend[]> {
    const { accountId, signer: address } = batch[0].operation;
    return this.signer.withSecret(accountId, 'evm', async (secret) => {
      const fees = await this.evm.fees(network);
      await runner.startTransaction();
      let signed: SignedSend[];
      try {
        let next = await this.healedNextNonce(runner, network, address, secret, fees);
        signed = [];
        for (const item of batch) {
          const tx = await this.evm.sign(network, secret, { ...item.call, nonce: next }, fees);
          const claimed = await this.operations.markSigned(runner.manager, item.operation.id, {
            nonce: next,
            signedTx: tx.signedTx,
            txHash: tx.hash,
          });
          if (!claimed) {
            item.done(); // another worker signed it first; its job confirms it
            continue;
          }
          signed.push({ ...item, nonce: next, ...tx });
          next += 1n;
        }
        await this.ledger.write(runner.manager, network.chainKey, address, next);
        await runner.commitTransaction();
      } catch (error) {
        await runner.rollbackTransaction();
        throw error;
      }
      this.faults.at('crash-after-sign');
      return this.broadcastInOrder(runner, network, address, signed);
    });
  }

  private async broadcastInOrder(
    runner: QueryRunner,
    network: EvmNetworkDefinition,
    address: string,
    signed: SignedSend[],
  ): Promise<PendingSend[]> {
    for (const [index, item] of signed.entries()) {
      let result;
      try {
        result = await this.evm.broadcast(network, item.signedTx);
      } catch (error) {
        // Unreachable node: the bytes may or may not have arrived. They are stored; each
        // operation's confirmation re-sends the same bytes.
        this.logger.warn(`Broadcast on ${network.network} failed: ${String(error)}`);
        for (const rest of signed.slice(index)) rest.done();
        return [];
      }
      if (result.kind === 'rejected') {
        await this.rollBack(runner, network, address, signed.slice(index));
        item.done(
          new AppError(
            'BAD_GATEWAY',
            `The ${network.network} node refused the transaction: ${result.message}`,
          ),
        );
        return signed
          .slice(index + 1)
          .map(({ operation, call, done }) => ({ operation, call, done }));
      }
      if (result.kind === 'accepted') await this.operations.markSubmitted(item.operation.id);
      // 'nonce-used': our bytes or others' hold this nonce; confirmation tells which.
      this.faults.at('crash-after-broadcast');
      item.done();
    }
    return [];
  }

  /** Frees the nonces of sends that never left, so the next allocation reuses them: no gap. */
  private async rollBack(
    runner: QueryRunner,
    network: EvmNetworkDefinition,
    address: string,
    unsent: SignedSend[],
  ): Promise<void> {
    await runner.startTransaction();
    try {
      for (const item of unsent)
        await this.operations.releaseSigned(runner.manager, item.operation.id);
      await this.ledger.write(runner.manager, network.chainKey, address, unsent[0].nonce);
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    }
    const failed = unsent[0].operation.id;
    await this.operations.fail(failed, {
      code: 'BAD_GATEWAY',
      message: 'The node refused the transaction.',
    });
  }

  /**
   * The ledger's next nonce, healed against the chain. Ahead of us (the wallet was used
   * elsewhere): jump forward. Behind us: the missing nonces belong to our in-flight transactions,
   * which are sent again, and any nonce none of them holds is filled with a zero-value
   * self-transfer so later transactions are not stuck. Nothing in flight at all: the chain
   * forgot them (a reset node), so start from the chain's count.
   */
  private async healedNextNonce(
    runner: QueryRunner,
    network: EvmNetworkDefinition,
    address: string,
    secret: Uint8Array,
    fees: FeeFields,
  ): Promise<bigint> {
    const [recorded, onChain] = await Promise.all([
      this.ledger.read(runner.manager, network.chainKey, address),
      this.evm.pendingNonce(network, address),
    ]);
    if (recorded === null || recorded <= onChain) {
      if (recorded !== null && recorded < onChain) {
        this.logger.warn(
          `Nonce ledger of ${address} on ${network.network} healed up: ${recorded} -> ${onChain}`,
        );
      }
      return onChain;
    }
    const inFlight = await this.operations.findInFlight(runner.manager, network.chainKey, address);
    if (inFlight.length === 0) {
      this.logger.warn(
        `Nonce ledger of ${address} on ${network.network} healed down: ${recorded} -> ${onChain}`,
      );
      return onChain;
    }
    const byNonce = new Map(inFlight.map((operation) => [operation.nonce, operation]));
    let fillers = 0;
    for (let nonce = onChain; nonce < recorded; nonce++) {
      const operation = byNonce.get(nonce);
      if (operation?.signedTx) {
        await this.evm.broadcast(network, operation.signedTx);
      } else if (fillers++ < MAX_FILLERS) {
        const filler = await this.evm.sign(
          network,
          secret,
          { to: address, data: '0x', gasLimit: 21_000n, nonce },
          fees,
        );
        await this.evm.broadcast(network, filler.signedTx);
        this.logger.warn(`Filled nonce gap ${nonce} of ${address} on ${network.network}`);
      }
    }
    return recorded;
  }
}
