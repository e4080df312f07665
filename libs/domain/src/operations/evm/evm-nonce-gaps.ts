import { Inject, Injectable, Logger } from '@nestjs/common';
import { METRICS, boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  EvmAdapter,
  bumpedFees,
  cappedFees,
  decodeSigned,
  feesJson,
  type EvmKey,
  type EvmNetworkDefinition,
  type FeeFields,
} from '@app/chains';
import {
  NonceLedgerRepository,
  OperationRepository,
  type OperationEntity,
  type WalletSession,
} from '@app/database';
import { WalletKeys } from '../wallet-keys';
import { feePolicyOf } from './evm-fee-policy';
import { planGapSends } from './gap-plan';
import { refusalNote } from './gap-refusal-note';
import { judgeGapStanding, type GapStanding } from './gap-standing';
import { planNonceHealing } from './nonce-healing';

/** Nonces no in-flight operation holds, filled per healing at most (the rest next time). */
const MAX_FILLERS = 64;
/** A wallet's pool is looked at by a waiting operation at most this often (per process). */
const LOOK_EVERY_MS = 2_000;
const LOGGED_ERROR_MAX = 300;

/** What filling a nonce needs: the wallet, its key, the fees of the moment. */
export interface WalletSigner {
  network: EvmNetworkDefinition;
  address: string;
  key: EvmKey;
  fees: FeeFields;
}

/**
 * Closes nonce gaps. A node mines a wallet's transactions only in nonce order, so one missing
 * from its pool (never sent after a crash, dropped by the node) holds back every later one,
 * however often those are sent again. The missing nonces are sent again from Postgres: the
 * stored bytes of the operation holding each one, or a zero-value self-transfer for a nonce
 * none holds. This happens when a batch numbers new transactions and, without waiting for one,
 * when an operation waits for a receipt while the node's pending count stands at or below its
 * nonce: the gap's own operation may not be running (its job lost, waiting for its account's
 * share, or backing off).
 *
 * Stored bytes the node will not take back (it refuses them, as when the base fee passed their
 * fee cap, or says it knows them and never mines them) would hold the gap open for good: when
 * a gap has stood at the same nonce for EVM_REPLACE_AFTER_MS, that nonce's operation is signed
 * again at higher fees (a new version, stored before it is sent; all versions share the nonce,
 * so at most one is mined).
 */
@Injectable()
export class EvmNonceGaps {
  private readonly logger = new Logger(EvmNonceGaps.name);
  /** By wallet: when a waiting operation last looked, and the look in progress. */
  private readonly looked = new Map<string, number>();
  private readonly looking = new Map<string, Promise<void>>();
  /** By wallet: the nonce its gap starts at, and since when the gap has started there. */
  private readonly standing = new Map<string, GapStanding>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly ledger: NonceLedgerRepository,
    private readonly keys: WalletKeys,
  ) {}

  /**
   * For an operation waiting for its receipt: when the node's pending count shows a nonce up to
   * the operation's own missing from its pool, sends again what the wallet has in flight from
   * there. One look per wallet per LOOK_EVERY_MS in this process; never throws (the wait goes
   * on, and the next look tries again).
   */
  async healBelow(network: EvmNetworkDefinition, operation: OperationEntity): Promise<void> {
    const wallet = walletKey(network, operation.signer);
    const running = this.looking.get(wallet);
    if (running) return running;
    if (Date.now() - (this.looked.get(wallet) ?? 0) < LOOK_EVERY_MS) return;
    this.looked.set(wallet, Date.now());
    const look = this.look(network, operation)
      .catch((error) =>
        this.logger.warn(
          `Nonce gap check of ${operation.signer} on ${network.network} failed: ${boundedText(error, LOGGED_ERROR_MAX)}`,
        ),
      )
      .finally(() => this.looking.delete(wallet));
    this.looking.set(wallet, look);
    return look;
  }

  private async look(network: EvmNetworkDefinition, operation: OperationEntity): Promise<void> {
    const pending = await this.evm.pendingNonce(network, operation.signer);
    if (pending > operation.nonce!) return;
    // The secret is read before the lock is taken: under it, every query runs on its connection.
    await this.keys.withEvmKey(operation.accountId, async (key) => {
      const signer: WalletSigner = {
        network,
        address: operation.signer,
        key,
        fees: cappedFees(
          await this.evm.fees(network),
          feePolicyOf(this.config, network).maxFeePerGas,
        ),
      };
      const wallet = walletKey(network, operation.signer);
      await this.ledger.withWalletLock(wallet, async (session) => {
        const [onChain, recorded] = await Promise.all([
          this.evm.pendingNonce(network, signer.address),
          this.ledger.read(session.scope, network.chainKey, signer.address),
        ]);
        const healing = planNonceHealing(recorded, onChain);
        if (healing.kind !== 'down') {
          this.standing.delete(wallet);
          return;
        }
        if (this.standsTooLong(wallet, onChain)) await this.resign(session, signer, onChain);
        await this.close(session, signer, healing.from, healing.to);
      });
    });
  }

  /**
   * Under the wallet's lock: sends again, in nonce order and in one batch, every nonce from
   * `from` to `to` (exclusive), the in-flight operation's stored bytes or a filler. Returns
   * whether any operation was in flight there (none: the node forgot the wallet's history).
   */
  async close(
    session: WalletSession,
    signer: WalletSigner,
    from: bigint,
    to: bigint,
  ): Promise<boolean> {
    const { network, address } = signer;
    const inFlight = await this.operations.findInFlight(session.scope, network.chainKey, address);
    const plan = planGapSends(from, to, inFlight, MAX_FILLERS);
    if (!plan) return false;
    const results = await this.evm.broadcastMany(
      network,
      await Promise.all(
        plan.map(async (send) =>
          'filler' in send ? this.filler(signer, send.nonce) : send.signedTx,
        ),
      ),
    );
    const filled = plan.filter((send) => 'filler' in send).length;
    METRICS.nonceGapsClosed.inc({ network: network.network });
    this.logger.warn(
      `Nonce gap of ${address} on ${network.network} closed: sent nonces ${from} to ${from + BigInt(plan.length) - 1n} again (${filled} filled)${refusalNote(results, from)}`,
    );
    return true;
  }

  /** Whether the wallet's gap has started at `nonce` for EVM_REPLACE_AFTER_MS (per process). */
  private standsTooLong(wallet: string, nonce: bigint): boolean {
    const { tooLong, standing } = judgeGapStanding(
      this.standing.get(wallet),
      nonce,
      Date.now(),
      this.config.evm.replaceAfterMs,
    );
    this.standing.set(wallet, standing);
    return tooLong;
  }

  /**
   * Under the wallet's lock: signs the transaction of the operation holding `nonce` again at
   * higher fees, and stores it as its current version (the next close sends it). Nothing to do
   * for a nonce no operation holds: its filler is signed afresh at each close.
   */
  private async resign(session: WalletSession, signer: WalletSigner, nonce: bigint): Promise<void> {
    const { network, address } = signer;
    const inFlight = await this.operations.findInFlight(session.scope, network.chainKey, address);
    const operation = inFlight.find((candidate) => candidate.nonce === nonce);
    if (!operation?.signedTx) return;
    const { unsigned, fees: previous } = decodeSigned(operation.signedTx);
    const fees = bumpedFees(previous, signer.fees, feePolicyOf(this.config, network));
    if (!fees) {
      this.logger.warn(
        `Nonce ${nonce} of ${address} on ${network.network} stays stuck: the fee ceiling leaves no room to sign it again`,
      );
      return;
    }
    const signed = await this.evm.sign(network, signer.key, unsigned, fees);
    const next = { signedTx: signed.signedTx, txHash: signed.hash, fees: feesJson(fees) };
    if (
      !(await this.operations.replaceSigned(operation.id, operation.txHash!, next, session.scope))
    )
      return; // its own run replaced or settled it meanwhile
    this.logger.warn({
      msg: 'Stuck nonce signed again',
      operationId: operation.id,
      nonce: String(nonce),
      previousTxHash: operation.txHash,
      txHash: signed.hash,
      fees: next.fees,
    });
  }

  /** Fills one nonce with a zero-value self-transfer, so the transactions after it can land. */
  async fill(signer: WalletSigner, nonce: bigint): Promise<void> {
    await this.evm.broadcast(signer.network, await this.filler(signer, nonce));
    this.logger.warn(`Filled nonce ${nonce} of ${signer.address} on ${signer.network.network}`);
  }

  private async filler(signer: WalletSigner, nonce: bigint): Promise<string> {
    const { signedTx } = await this.evm.sign(
      signer.network,
      signer.key,
      { to: signer.address, data: '0x', gasLimit: 21_000n, nonce },
      signer.fees,
    );
    return signedTx;
  }
}

/** A wallet on a chain: the key of its send lock. */
export function walletKey(network: EvmNetworkDefinition, address: string): string {
  return `${network.chainKey}|${address}`;
}
