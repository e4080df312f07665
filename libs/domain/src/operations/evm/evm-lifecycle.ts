import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { METRICS, boundedText, clamp } from '@app/common';
import { APP_CONFIG, type AppConfig, type EvmNetwork } from '@app/config';
import {
  EvmAdapter,
  EvmInclusionWatcher,
  evmOutcome,
  planEvmCall,
  type EvmNetworkDefinition,
} from '@app/chains';
import { OperationRepository, type OperationEntity } from '@app/database';
import { CheckLater } from '../check-later';
import { RetryLater } from '../retry-later';
import { RoundMemory } from '../round-memory';
import type { CheckVerdict, TransactionLifecycle } from '../transaction-lifecycle';
import { EvmNonceGaps, walletKey } from './evm-nonce-gaps';
import { EvmRepricing, type RepriceReason } from './evm-repricing';
import { HeldWallets } from './evm-held-wallets';
import { EvmSendPipeline } from './evm-send-pipeline';
import { EvmUnfundedOperations } from './evm-unfunded';
import { VersionWatch, type Landed } from './evm-version-watch';

/** The longest a wait for inclusion lasts within a round (the timers below run between). */
const INCLUSION_WAIT_MAX_MS = 1_000;
/**
 * A parked check comes back within these bounds (sooner when one of its versions is mined):
 * every round asks for its receipts once, and looks for a nonce gap below it.
 */
const PARK_MIN_MS = 250;
const PARK_MAX_MS = 5_000;
/** Waited this long without a receipt, an operation checks for a nonce gap below it. */
const GAP_LOOK_AFTER_MS = 2_000;
/** Waited this long without a receipt, an operation says so once (where its wallet stands). */
const SLOW_RECEIPT_MS = 15_000;
const REFUSAL_LOGGED_MAX = 300;

/** What the wait for an operation's receipt keeps from one round of its check to the next. */
interface ReceiptWait {
  startedAt: number;
  /** When this process last sent its bytes (0: to be sent at once). */
  lastSentAt: number;
  /** Since when its current version waits unmined (re-priced after EVM_REPLACE_AFTER_MS). */
  waitingSince: number;
  /** When a version the node refused for its price was last signed again. */
  repricedAt: number;
  saidSlow: boolean;
  /** Why the node last refused the stored bytes, if it did: said with the wait's outcome. */
  refusal: string;
  /**
   * The node refused the bytes for its limit on one sender's pending transactions, and has not
   * taken them since: its wallet's loop sends them again after each block (see HeldWallets).
   */
  held?: boolean;
}

/**
 * The EVM family's transaction lifecycle (see TransactionLifecycle). Safe to run twice, in two
 * processes, or after a crash at any point: every signed version of its transaction is stored
 * before it is sent, and all of them share one nonce, so at most one can ever be mined.
 *
 * A transaction that sits unmined for `EVM_REPLACE_AFTER_MS` while the market asks more than it
 * offers is signed again with the same nonce at current fees (bumped by at least the nodes'
 * replacement minimum, never above the network's ceiling). Whichever version is mined is
 * adopted. Only when the nonce is provably spent on chain by none of its versions is the
 * operation signed anew with another nonce.
 */
@Injectable()
export class EvmLifecycle
  implements TransactionLifecycle<EvmNetworkDefinition>, OnApplicationShutdown
{
  private readonly logger = new Logger(EvmLifecycle.name);
  private readonly heldWallets: HeldWallets;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly pipeline: EvmSendPipeline,
    private readonly repricing: EvmRepricing,
    private readonly inclusion: EvmInclusionWatcher,
    private readonly gaps: EvmNonceGaps,
    private readonly unfunded: EvmUnfundedOperations,
  ) {
    this.heldWallets = new HeldWallets(evm, operations, inclusion, this.logger);
  }

  onApplicationShutdown(): void {
    this.heldWallets.stop();
  }

  /**
   * By wallet: seen refused for funds by this process (and not accepted since): its waiting
   * operations send their bytes at once rather than after a re-send interval, so a retry holds
   * its job only as long as one question to the node.
   */
  private readonly unfundedWallets = new Set<string>();
  private readonly waits = new RoundMemory<ReceiptWait>();

  /** Plans, signs, stores and broadcasts (in a batch with the wallet's other queued ones). */
  async send(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
  ): Promise<OperationEntity | null> {
    const call = await planEvmCall(this.evm.provider(network), operation.signer, operation.intent);
    return this.pipeline.send(network, operation, call);
  }

  /** Waits, this round, for a receipt deep enough; its timers are kept between rounds. */
  check(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
    sentAfter: number | null,
    roundEnds: number,
  ): Promise<CheckVerdict> {
    return this.waits.round(operation.id, () =>
      this.verdict(network, operation, sentAfter, roundEnds),
    );
  }

  private async verdict(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
    sentAfter: number | null,
    roundEnds: number,
  ): Promise<CheckVerdict> {
    let landed: Landed;
    try {
      landed = await this.awaitDeepReceipt(network, operation, sentAfter, roundEnds);
    } catch (error) {
      if (!(error instanceof ReplacedTransaction)) throw error;
      // Provably dead: its nonce is spent by a transaction that is none of its versions, so
      // none can ever land, and nothing ran. Only now may the operation be signed anew.
      await this.operations.releaseSigned(this.operations.outsideTransaction(), operation.id);
      return { kind: 'released', reason: 'its nonce was used by another transaction' };
    }
    const { receipt, txHash } = landed;
    if (receipt.status === 1) {
      return {
        kind: 'confirmed',
        outcome: evmOutcome(operation.intent, receipt),
        adoptedTxHash: txHash === operation.txHash ? undefined : txHash,
      };
    }
    const error = await this.evm.revertReason(network, operation.signer, operation.intent, receipt);
    return { kind: 'failed', error };
  }

  /**
   * A receipt of one of the operation's versions in a block `EVM_CONFIRMATIONS` deep (its own
   * included), read again once that deep: a receipt in a block a reorg took away is no receipt.
   * Mined again elsewhere, it waits for that block's depth; not mined any more, it is waited
   * for again from the start, its bytes sent again at once (a reorg returns transactions to the
   * pool only on some nodes). Not that deep by the round's end, the check is parked until the
   * chain reaches the height.
   */
  private async awaitDeepReceipt(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
    sentAfter: number | null,
    roundEnds: number,
  ): Promise<Landed> {
    const confirmations = this.config.evm.confirmations[network.network as EvmNetwork];
    let landed = await this.awaitReceipt(network, operation, sentAfter, roundEnds);
    while (confirmations > 1) {
      const deepAt = landed.receipt.blockNumber + confirmations - 1;
      const patience = roundEnds - Date.now();
      if (patience <= 0 || !(await this.inclusion.untilHeight(network, deepAt, patience))) {
        throw new CheckLater(
          `Transaction ${landed.txHash} mined in block ${landed.receipt.blockNumber}; waiting for ${confirmations} confirmations`,
          PARK_MAX_MS,
          { wait: (maxMs) => this.inclusion.untilHeight(network, deepAt, maxMs), cancel: () => {} },
        );
      }
      const current = await this.reloadInFlight(operation.id);
      const now = await this.landedVersion(network, await this.versionsOf(current));
      if (now?.receipt.blockHash === landed.receipt.blockHash) return now;
      this.logger.warn({
        msg: 'Receipt taken away by a reorg',
        operationId: operation.id,
        txHash: landed.txHash,
        block: landed.receipt.blockNumber,
        minedAgainIn: now?.receipt.blockNumber ?? null,
      });
      METRICS.evmReorgedReceipts.inc({ network: network.network });
      landed = now ?? (await this.awaitReceipt(network, current, null, roundEnds, true));
    }
    return landed;
  }

  /**
   * Waits, until the round ends, for a receipt of any version of the operation's transaction:
   * asked for directly, then again whenever the network's block scan sees one of them mined (or
   * a second passes without news, so the timers below still run). A `signed` version may never
   * have been broadcast (a crash, or a replacement just stored), so its bytes go out first;
   * later, the same bytes are re-sent whenever the node seems to have dropped them, a version
   * the market has outbid is replaced, and a nonce gap below the operation (which would hold it
   * back forever) is closed. No receipt by the round's end: the check is parked (CheckLater)
   * until one of its versions is mined or its next timer is due, its timers kept for its next
   * round (`waits`).
   */
  private async awaitReceipt(
    network: EvmNetworkDefinition,
    initial: OperationEntity,
    sentAfter: number | null,
    roundEnds: number,
    sendAtOnce = false,
  ): Promise<Landed> {
    const justSigned = sentAfter !== null;
    let operation = initial;
    let hashes = justSigned ? [operation.txHash!] : await this.versionsOf(operation);
    const wallet = walletKey(network, operation.signer);
    const walletFundsShort = this.unfundedWallets.has(wallet);
    if (justSigned) this.waits.forget(operation.id);
    const wait = this.waits.of(operation.id, () => ({
      startedAt: Date.now(),
      lastSentAt: operation.status === 'signed' ? 0 : Date.now(),
      waitingSince: justSigned ? Date.now() : operation.updatedAt.getTime(),
      repricedAt: 0,
      saidSlow: false,
      refusal: '',
    }));
    if (sendAtOnce || walletFundsShort) wait.lastSentAt = 0;
    const wakeMs = Math.min(
      INCLUSION_WAIT_MAX_MS,
      this.config.worker.rebroadcastAfterMs,
      this.config.evm.replaceAfterMs,
    );
    const watch = new VersionWatch(this.inclusion, network, (versions) =>
      this.landedVersion(network, versions),
    );
    /**
     * Signs the transaction again, same nonce, at higher fees (EvmRepricing) and waits on every
     * version: truthy when the operation changed ('moved-on': another worker got there first).
     */
    const reprice = async (why: RepriceReason): Promise<'replaced' | 'moved-on' | null> => {
      wait.waitingSince = Date.now();
      const replaced = await this.repricing.replace(network, operation, why);
      if (replaced === 'moved-on') {
        operation = await this.reloadInFlight(operation.id);
        hashes = await this.versionsOf(operation);
        return 'moved-on';
      }
      if (!replaced) return null;
      operation = replaced;
      hashes = [...hashes, replaced.txHash!];
      wait.lastSentAt = 0;
      return 'replaced';
    };
    // Just sent, and every block since is one the network's scan has read or will read: the
    // scan tells the watch when it is mined, before its registration included, so its first
    // look is the one that follows (an RPC call less for every operation). Otherwise the
    // watch looks at once when registered: a version mined before then shows only there.
    if (sentAfter !== null && this.inclusion.seesSince(network, sentAfter)) {
      watch.follow(hashes);
    } else {
      const landed = await watch.register(hashes);
      if (landed) return landed;
    }
    try {
      do {
        if (wait.held) await this.followHeld(network, operation, wait);
        // Held back by the pool limit, the node's pending count stands below it by design: not
        // a gap to close (the wallet's loop sends its lowest nonces again after each block).
        if (!wait.held && Date.now() - wait.startedAt >= GAP_LOOK_AFTER_MS)
          await this.gaps.healBelow(network, operation);
        if (!wait.saidSlow && Date.now() - wait.startedAt >= SLOW_RECEIPT_MS) {
          wait.saidSlow = true;
          this.logger.warn(
            `No receipt for ${operation.txHash} after ${SLOW_RECEIPT_MS} ms${await this.walletState(network, operation)}${wait.refusal}`,
          );
        }

        if (Date.now() - wait.waitingSince >= this.config.evm.replaceAfterMs) {
          if ((await reprice('stuck')) === 'moved-on') continue;
        }

        const resendDue = wait.lastSentAt === 0 ? 0 : this.config.worker.rebroadcastAfterMs;
        if (Date.now() - wait.lastSentAt >= resendDue) {
          if (wait.lastSentAt !== 0) {
            // Another run, or the gap closer, may have signed a newer version meanwhile.
            const current = await this.reloadInFlight(operation.id);
            if (current.txHash !== operation.txHash) {
              operation = current;
              hashes = await this.versionsOf(operation);
            }
          }
          const result = await this.evm.broadcast(network, operation.signedTx!);
          wait.lastSentAt = Date.now();
          if (result.kind === 'insufficient-funds') {
            this.unfundedWallets.add(wallet);
            throw await this.unfunded.awaitingFunds(network, operation);
          }
          this.unfundedWallets.delete(wallet);
          if (result.kind === 'accepted') await this.operations.markSubmitted(operation.id);
          wait.refusal =
            result.kind === 'rejected' ||
            result.kind === 'underpriced' ||
            result.kind === 'pool-limit'
              ? `; the node refuses it: ${boundedText(result.message, REFUSAL_LOGGED_MAX)}`
              : '';
          wait.held = result.kind === 'pool-limit';
          if (wait.held) {
            // The node holds as many of the wallet's transactions as it takes from one sender.
            // These bytes are fine: not failed, not re-priced (they wait in no pool), sent again
            // after the next block with the wallet's others, lowest nonce first.
            wait.waitingSince = Date.now();
            this.heldWallets.hold(network, operation.signer);
          }
          // Refused for its price: signed again at fees the node takes, now rather than after
          // EVM_REPLACE_AFTER_MS (at most once a re-send interval, so a node that names no
          // figure does not drive the fees to the ceiling at once).
          if (
            result.kind === 'underpriced' &&
            Date.now() - wait.repricedAt >= this.config.worker.rebroadcastAfterMs
          ) {
            wait.repricedAt = Date.now();
            if (await reprice('refused')) continue;
          }
          if (result.kind === 'nonce-used' && (await this.nonceSpent(network, operation))) {
            // Read after the nonce was seen spent: a version stored elsewhere before it was mined
            // is among them, so no mined version of ours passes for a stranger's transaction.
            hashes = await this.versionsOf(operation);
            const landedNow = await this.landedVersion(network, hashes);
            if (landedNow) return landedNow;
            throw new ReplacedTransaction();
          }
          // Otherwise the pool holds a version it prefers (one of ours): keep waiting.
        }
        const found = await watch.wait(hashes, clamp(roundEnds - Date.now(), 0, wakeMs));
        if (found) return found;
      } while (Date.now() < roundEnds);
      throw new CheckLater(
        `No receipt for ${operation.txHash} yet${wait.refusal}`,
        this.parkMs(wait),
        watch.handOver(hashes),
      );
    } finally {
      watch.cancel();
    }
  }

  /**
   * A held transaction, told what the node answered its bytes in its wallet's loop: taken, it
   * waits in the pool from now on; still refused, it waits in none (no re-pricing). With no
   * loop running (it ended), its bytes are sent at once, and a refusal starts the loop again.
   */
  private async followHeld(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
    wait: ReceiptWait,
  ): Promise<void> {
    const answer = this.heldWallets.answer(network, operation.signer, operation.signedTx!);
    if (answer === null) {
      wait.lastSentAt = 0;
    } else if (answer === undefined || answer.kind === 'pool-limit') {
      wait.waitingSince = Date.now();
    } else {
      wait.held = false;
      wait.waitingSince = Date.now();
      if (answer.kind === 'accepted') await this.operations.markSubmitted(operation.id);
    }
  }

  /** Until the waiting check's next timer (a re-send, a re-pricing) is due, within bounds. */
  private parkMs(wait: ReceiptWait): number {
    const resendAt = wait.lastSentAt + this.config.worker.rebroadcastAfterMs;
    const repriceAt = wait.waitingSince + this.config.evm.replaceAfterMs;
    return clamp(Math.min(resendAt, repriceAt) - Date.now(), PARK_MIN_MS, PARK_MAX_MS);
  }

  /** Where the wallet stands on chain, for the warning of a slow receipt (best effort). */
  private async walletState(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
  ): Promise<string> {
    try {
      const [mined, pending] = await Promise.all([
        this.evm.minedNonce(network, operation.signer),
        this.evm.pendingNonce(network, operation.signer),
      ]);
      return ` (nonce ${operation.nonce}; the node counts ${mined} mined, ${pending} with its pool)`;
    } catch {
      return '';
    }
  }

  /** Every version's receipt is asked for: whichever was mined settles the operation. */
  private async landedVersion(
    network: EvmNetworkDefinition,
    hashes: string[],
  ): Promise<Landed | null> {
    const receipts = await Promise.all(hashes.map((hash) => this.evm.receipt(network, hash)));
    const index = receipts.findIndex((receipt) => receipt !== null);
    return index < 0 ? null : { receipt: receipts[index]!, txHash: hashes[index] };
  }

  private async nonceSpent(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
  ): Promise<boolean> {
    return (await this.evm.minedNonce(network, operation.signer)) > operation.nonce!;
  }

  /** The hashes of every version signed for the operation's nonce (the current one included). */
  private async versionsOf(operation: OperationEntity): Promise<string[]> {
    const hashes = await this.operations.transactionHashes(operation.id);
    return hashes.includes(operation.txHash!) ? hashes : [...hashes, operation.txHash!];
  }

  /** The operation as stored, while it is still in flight (signed or submitted). */
  private async reloadInFlight(id: string): Promise<OperationEntity> {
    const operation = await this.reload(id);
    if (operation.status !== 'signed' && operation.status !== 'submitted') {
      throw new RetryLater(`Operation ${id} moved on under another worker`);
    }
    return operation;
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
