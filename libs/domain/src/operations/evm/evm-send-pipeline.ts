import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, METRICS, TimeSlices, boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  ChainRejection,
  EvmAdapter,
  cappedFees,
  feesJson,
  insufficientFunds,
  landingPricePerGas,
  maxCost,
  nodeRefusal,
  type BroadcastResult,
  type EvmCall,
  type EvmNetworkDefinition,
  type FeeFields,
} from '@app/chains';
import {
  NonceLedgerRepository,
  OperationRepository,
  type OperationEntity,
  type WalletSession,
} from '@app/database';
import { FaultInjection } from '../fault-injection';
import { OperationSettler } from '../operation-settler';
import { classifyFailure } from '../failure-classifier';
import { WalletKeys } from '../wallet-keys';
import { RetryLater } from '../retry-later';
import { feePolicyOf } from './evm-fee-policy';
import { EvmNonceGaps, walletKey, type WalletSigner } from './evm-nonce-gaps';
import { nextAfterGap, planNonceHealing } from './nonce-healing';
import { mergeTwins } from './send-batch-twins';
import { fromBaseUnits } from '../../assets/amounts';
import { SigningPolicies } from '../../policies/signing-policies';
import {
  PolicyViolation,
  feeCeilingWei,
  intentViolation,
  type SigningPolicy,
} from '../../policies/signing-policy';

const MAX_BATCH = 200;
/** A batch's signing loop lets other I/O through after this long (see TimeSlices). */
const SIGNING_SLICE_MS = 5;
const GWEI_DECIMALS = 9;
const LOGGED_ERROR_MAX = 500;

interface PendingSend {
  operation: OperationEntity;
  call: EvmCall;
  /** `stored`: the operation as this batch left it; absent when another worker signed it. */
  done: (error?: Error, stored?: OperationEntity) => void;
}

interface SignedSend extends PendingSend {
  nonce: bigint;
  signedTx: string;
  hash: string;
  /** What it can cost the wallet at most (see maxCost). */
  cost: bigint;
}

/** The account's signing policy, and the breach of its fee ceiling the market makes now. */
interface BatchRules {
  policy: SigningPolicy;
  feeBreach: PolicyViolation | null;
}

/** A batch's view of its wallet's funds: what its pending transactions leave for new ones. */
interface Funds {
  left: bigint;
}

/**
 * Signs and broadcasts a wallet's transactions in nonce order, across every worker process.
 *
 * Within a process, sends of one wallet join a queue drained by one loop; across processes, a
 * Postgres advisory lock per (chain, wallet) is held while a batch is numbered, signed, stored
 * and broadcast. So nonces are allocated atomically, the signed bytes are in Postgres before
 * they leave, and sends go out in nonce order (one ordered JSON-RPC batch). A refused send
 * leaves no gap: its nonce is freed when nothing after it was accepted, else filled. Receipts
 * are awaited outside the lock, so a wallet's operations are pipelined, not one at a time.
 */
@Injectable()
export class EvmSendPipeline {
  private readonly logger = new Logger(EvmSendPipeline.name);
  private readonly queues = new Map<string, PendingSend[]>();
  private readonly draining = new Set<string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly ledger: NonceLedgerRepository,
    private readonly keys: WalletKeys,
    private readonly faults: FaultInjection,
    private readonly gaps: EvmNonceGaps,
    private readonly settler: OperationSettler,
    private readonly policies: SigningPolicies,
  ) {}

  /**
   * Resolves once the operation is signed and stored (and, unless the node was unreachable,
   * broadcast), with the operation as stored (`signed` or `submitted`), or with null when
   * another worker had signed it; rejects with an AppError when the node refused it for good.
   */
  send(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
    call: EvmCall,
  ): Promise<OperationEntity | null> {
    const wallet = walletKey(network, operation.signer);
    return new Promise<OperationEntity | null>((resolve, reject) => {
      const queue = this.queues.get(wallet) ?? [];
      this.queues.set(wallet, queue);
      queue.push({
        operation,
        call,
        done: (error, stored) => (error ? reject(error) : resolve(stored ?? null)),
      });
      if (!this.draining.has(wallet)) void this.drain(wallet, network);
    });
  }

  private async drain(wallet: string, network: EvmNetworkDefinition): Promise<void> {
    this.draining.add(wallet);
    try {
      for (;;) {
        const queue = this.queues.get(wallet);
        if (!queue || queue.length === 0) break;
        const batch = mergeTwins(queue.splice(0, MAX_BATCH));
        const { accountId, signer: address } = batch[0].operation;
        try {
          // The secret is read before the lock is taken: while the lock's connection is held,
          // every query runs on it, never on a second pool connection (that could deadlock).
          await this.keys.withEvmKey(accountId, async (key) => {
            const [policy, market] = await Promise.all([
              this.policies.of(accountId),
              this.evm.fees(network),
            ]);
            const signer = {
              network,
              address,
              key,
              // Above the deployment's ceiling, the transaction waits for fees to come down.
              fees: cappedFees(market, feePolicyOf(this.config, network, policy).maxFeePerGas),
            };
            const rules = { policy, feeBreach: feeCeilingBreach(network, policy, market) };
            await this.ledger.withWalletLock(wallet, (session) =>
              this.sendBatch(session, signer, rules, batch),
            );
          });
        } catch (error) {
          const failure = batchFailure(error);
          for (const item of batch) item.done(failure);
        }
      }
    } finally {
      this.draining.delete(wallet);
      this.queues.delete(wallet);
    }
  }

  /**
   * Numbers, signs and stores the batch under the wallet's lock, then sends it. Only what the
   * wallet can pay for together is signed (the balance its pool leaves, read with the nonce, in
   * one round trip): the rest fail with 409 before a nonce is taken, since a transaction the
   * wallet cannot pay for would hold its nonce, and every later one, until the wallet is funded.
   * What the account's signing policy forbids fails here too, the last line of defence.
   */
  private async sendBatch(
    session: WalletSession,
    signer: WalletSigner,
    rules: BatchRules,
    batch: PendingSend[],
  ): Promise<void> {
    const signed: SignedSend[] = [];
    const unpaid: { item: PendingSend; cost: bigint }[] = [];
    const refused: PendingSend[] = [];
    const announcements: (() => Promise<void>)[] = [];
    const refuse = async (item: PendingSend, violation: PolicyViolation) => {
      const { accountId, id } = item.operation;
      await this.policies.violated(accountId, violation, id, session.scope);
      announcements.push(await this.settler.failWithin(session.scope, item.operation, violation));
      refused.push(item);
    };
    const funds: Funds = { left: 0n };
    await session.transaction(async () => {
      const [start, balance] = await Promise.all([
        this.healedNextNonce(session, signer),
        this.evm.pendingBalance(signer.network, signer.address),
      ]);
      let next = start;
      funds.left = balance;
      const claimable = await this.operations.lockQueued(
        session.scope,
        batch.map((item) => item.operation.id),
      );
      const slices = new TimeSlices(SIGNING_SLICE_MS);
      for (const item of batch) {
        await slices.slice();
        if (!claimable.has(item.operation.id)) {
          item.done(); // another worker signed it first; its job confirms it
          continue;
        }
        const broken =
          rules.feeBreach ??
          intentViolation(
            rules.policy,
            signer.network.network,
            item.operation.intent,
            signer.address,
          );
        if (broken) {
          await refuse(item, broken);
          continue;
        }
        const cost = maxCost(item.call.gasLimit, signer.fees);
        if (cost > funds.left) {
          unpaid.push({ item, cost });
          continue;
        }
        const overCap = await this.policies.reserve(
          item.operation,
          rules.policy,
          signer.network,
          cost,
          session.scope,
        );
        if (overCap) {
          await refuse(item, overCap);
          continue;
        }
        funds.left -= cost;
        const tx = await this.evm.sign(
          signer.network,
          signer.key,
          { ...item.call, nonce: next },
          signer.fees,
        );
        signed.push({ ...item, nonce: next, cost, ...tx });
        next += 1n;
      }
      await this.operations.markSignedMany(
        session.scope,
        signed.map((item) => ({
          id: item.operation.id,
          nonce: item.nonce,
          signedTx: item.signedTx,
          txHash: item.hash,
        })),
        feesJson(signer.fees),
      );
      await this.ledger.write(session.scope, signer.network.chainKey, signer.address, next);
    });
    for (const announce of announcements) await announce();
    for (const item of refused) item.done(); // failed here: its run reads it settled
    for (const { item, cost } of unpaid) {
      METRICS.walletFundsShort.inc({ network: signer.network.network, stage: 'before-signing' });
      item.done(insufficientFunds({ ...this.shortOf(signer), balance: funds.left, needed: cost }));
    }
    this.faults.at('crash-after-sign');
    await this.broadcast(session, signer, signed, funds);
  }

  private shortOf(signer: WalletSigner) {
    return { network: signer.network, address: signer.address };
  }

  private async broadcast(
    session: WalletSession,
    signer: WalletSigner,
    signed: SignedSend[],
    funds: Funds,
  ): Promise<void> {
    let results: BroadcastResult[];
    try {
      results = await this.evm.broadcastMany(
        signer.network,
        signed.map((item) => item.signedTx),
      );
    } catch (error) {
      // Unreachable node: these bytes may or may not have arrived. They are stored; each
      // operation's confirmation re-sends the same bytes.
      this.logger.warn(
        `Broadcast on ${signer.network.network} failed: ${boundedText(error, LOGGED_ERROR_MAX)}`,
      );
      for (const item of signed) item.done(undefined, stored(item, 'signed'));
      return;
    }
    if (results.some((result) => result.kind === 'insufficient-funds')) {
      // The balance moved since the batch read it (a drain, another sender): say what is left.
      funds.left = await this.evm
        .pendingBalance(signer.network, signer.address)
        .catch(() => funds.left);
    }
    const refusals = results.map((result, index) =>
      this.refusalOf(signer, signed[index], result, funds),
    );
    if (refusals.some((refusal) => refusal !== null)) {
      await this.settleRefused(session, signer, signed, refusals);
    }
    const accepted = signed.filter((_, index) => results[index].kind === 'accepted');
    await this.operations.markSubmittedMany(
      session.scope,
      accepted.map((item) => item.operation.id),
    );
    this.faults.at('crash-after-broadcast');
    signed.forEach((item, index) => {
      const result = results[index];
      if (result.kind === 'accepted') return item.done(undefined, stored(item, 'submitted'));
      const refusal = refusals[index];
      if (refusal) return item.done(refusal);
      // 'nonce-used': our bytes or others' hold this nonce; confirmation tells which.
      // 'underpriced': under what the node takes now, it keeps its nonce; confirmation signs it
      // again at fees the node takes (or waits for the base fee to come under the ceiling).
      // 'pool-limit': the node holds as many of the wallet's transactions as it takes from one
      // sender; it keeps its nonce and bytes, and confirmation sends them again after a block.
      item.done(undefined, stored(item, 'signed'));
    });
  }

  /**
   * The error a just-signed transaction's refusal fails its operation with, or null when the
   * refusal leaves it waiting (a used nonce, a price, the node's limit on one sender's pending
   * transactions). The node refusing it for funds means the wallet's balance moved between the
   * read and the send (another sender, a drain): a 409.
   */
  private refusalOf(
    signer: WalletSigner,
    item: SignedSend,
    result: BroadcastResult,
    funds: Funds,
  ): ChainRejection | AppError | null {
    if (result.kind === 'rejected') return nodeRefusal(signer.network.network, result.message);
    if (result.kind !== 'insufficient-funds') return null;
    METRICS.walletFundsShort.inc({ network: signer.network.network, stage: 'refused-at-send' });
    return insufficientFunds({ ...this.shortOf(signer), balance: funds.left, needed: item.cost });
  }

  /**
   * Refused transactions fail their operations. Refused ones at the end of the batch free their
   * nonces (the ledger steps back); one refused before an accepted one has its nonce filled
   * with a zero-value self-transfer, so the transactions after it are not stuck behind a gap.
   */
  private async settleRefused(
    session: WalletSession,
    signer: WalletSigner,
    signed: SignedSend[],
    refusals: (ChainRejection | AppError | null)[],
  ): Promise<void> {
    let tail = signed.length;
    while (tail > 0 && refusals[tail - 1] !== null) tail--;
    const announcements: (() => Promise<void>)[] = [];
    await session.transaction(async () => {
      for (const [index, item] of signed.entries()) {
        const refused = refusals[index];
        if (!refused) continue;
        await this.operations.releaseSigned(session.scope, item.operation.id);
        // Through the settler: a carrier's entries fail (or split) with it.
        const released = { ...item.operation, nonce: null, signedTx: null, txHash: null };
        announcements.push(await this.settler.failWithin(session.scope, released, refused));
        // The client reads the plain message; what the node said is kept here only.
        this.logger.warn({
          msg: 'Node refused the transaction',
          operationId: item.operation.id,
          network: signer.network.network,
          chainError: refused instanceof ChainRejection ? refused.detail : refused.message,
        });
      }
      if (tail < signed.length) {
        const firstFreed = signed[tail].nonce;
        await this.ledger.write(session.scope, signer.network.chainKey, signer.address, firstFreed);
      }
    });
    for (const announce of announcements) await announce();
    for (const [index, item] of signed.slice(0, tail).entries()) {
      if (refusals[index]) await this.gaps.fill(signer, item.nonce);
    }
  }

  /**
   * The ledger's next nonce, healed against the chain. Ahead of us (the wallet was used
   * elsewhere): jump forward. Behind us: the missing nonces belong to our in-flight transactions,
   * which are sent again, and any nonce none of them holds is filled, so later transactions are
   * not stuck. Nothing in flight at all: the chain forgot them (a reset node), so start from
   * the chain's count.
   */
  private async healedNextNonce(session: WalletSession, signer: WalletSigner): Promise<bigint> {
    const { network, address } = signer;
    const [recorded, onChain] = await Promise.all([
      this.ledger.read(session.scope, network.chainKey, address),
      this.evm.pendingNonce(network, address),
    ]);
    const healing = planNonceHealing(recorded, onChain);
    switch (healing.kind) {
      case 'in-step':
        return healing.next;
      case 'up':
        METRICS.nonceResyncs.inc({ network: network.network, direction: 'up' });
        this.logger.warn(
          `Nonce ledger of ${address} on ${network.network} healed up: ${healing.recorded} -> ${healing.next}`,
        );
        return healing.next;
      case 'down': {
        METRICS.nonceResyncs.inc({ network: network.network, direction: 'down' });
        const anyInFlight = await this.gaps.close(session, signer, healing.from, healing.to);
        if (!anyInFlight) {
          this.logger.warn(
            `Nonce ledger of ${address} on ${network.network} healed down: ${healing.to} -> ${healing.from}`,
          );
        }
        return nextAfterGap(healing, anyInFlight);
      }
    }
  }
}

/**
 * The account's fee ceiling broken by the market: what one gas costs to be mined now is above
 * it, so nothing signed within it could land. Null without a ceiling on the network.
 */
function feeCeilingBreach(
  network: EvmNetworkDefinition,
  policy: SigningPolicy,
  market: FeeFields,
): PolicyViolation | null {
  const ceiling = feeCeilingWei(policy, network.network);
  const price = landingPricePerGas(market);
  if (ceiling === undefined || price <= ceiling) return null;
  return new PolicyViolation(
    'max_fee_gwei',
    `a gas costs ${fromBaseUnits(price, GWEI_DECIMALS)} gwei on ${network.network} now, above the ` +
      `account's ceiling of ${policy.max_fee_gwei![network.network]} gwei.`,
    network.network,
  );
}

/** The row as markSignedMany (and markSubmittedMany) wrote it. */
function stored(item: SignedSend, status: 'signed' | 'submitted'): OperationEntity {
  return {
    ...item.operation,
    status,
    nonce: item.nonce,
    signedTx: item.signedTx,
    txHash: item.hash,
  };
}

/**
 * A whole batch's failure is the wallet's (its lock, its key, its node), not one operation's
 * input: it may fail an operation at once only when it is a definitive refusal. Anything else
 * is a reason to retry, even if it looks deterministic.
 */
function batchFailure(error: unknown): Error {
  if (error instanceof AppError || classifyFailure(error).kind === 'transient') {
    return error instanceof Error ? error : new Error(String(error));
  }
  return new RetryLater('The transaction could not be signed.', { cause: error });
}
