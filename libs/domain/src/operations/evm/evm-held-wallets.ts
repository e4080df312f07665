import type { Logger } from '@nestjs/common';
import { boundedText } from '@app/common';
import {
  EvmAdapter,
  EvmInclusionWatcher,
  type BroadcastResult,
  type EvmNetworkDefinition,
} from '@app/chains';
import type { OperationRepository } from '@app/database';
import { walletKey } from './evm-nonce-gaps';

const REFUSAL_LOGGED_MAX = 300;
/** At most this many of a held wallet's transactions are sent again after a block. */
const HELD_RESEND_MAX = 200;
/** How long a held wallet's loop waits for the next block before it looks again. */
const HELD_BLOCK_WAIT_MS = 5_000;
/** Looks without a new block after which a held wallet's loop ends (its checks send again). */
const HELD_IDLE_LOOKS = 12;

/**
 * Wallets a node holds back for its limit on one sender's pending transactions (a `pool-limit`
 * refusal), each with a loop in this process. A node mines a wallet's transactions in nonce
 * order and takes only so many of them at once, so after each block it takes the next few: the
 * lowest nonces, which a re-send timer per transaction would leave waiting while a later one
 * was sent. After every block, the loop sends the wallet's in-flight bytes from its mined nonce
 * on, lowest first, in one batch, whether their checks run or are parked, until the node
 * refuses none of them; the checks read its answers (`answer`).
 */
export class HeldWallets {
  private readonly loops = new Map<string, { answers: Map<string, BroadcastResult> }>();
  private stopped = false;

  constructor(
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly inclusion: EvmInclusionWatcher,
    private readonly logger: Logger,
  ) {}

  /** Starts the wallet's loop unless it runs. */
  hold(network: EvmNetworkDefinition, address: string): void {
    const wallet = walletKey(network, address);
    if (this.loops.has(wallet) || this.stopped) return;
    const loop = { answers: new Map<string, BroadcastResult>() };
    this.loops.set(wallet, loop);
    void this.run(network, address, loop)
      .catch((error) =>
        // The node away: the checks send their own bytes again, and a refusal starts it anew.
        this.logger.warn(
          `Re-sends of ${address}'s held transactions on ${network.network} stopped: ${boundedText(error, REFUSAL_LOGGED_MAX)}`,
        ),
      )
      .finally(() => this.loops.delete(wallet));
  }

  /**
   * The node's answer to these bytes in the wallet's loop: undefined when they have not been
   * sent there (yet), null when no loop runs for the wallet.
   */
  answer(
    network: EvmNetworkDefinition,
    address: string,
    signedTx: string,
  ): BroadcastResult | undefined | null {
    const loop = this.loops.get(walletKey(network, address));
    return loop ? loop.answers.get(signedTx) : null;
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(
    network: EvmNetworkDefinition,
    address: string,
    loop: { answers: Map<string, BroadcastResult> },
  ): Promise<void> {
    let head = await this.evm.blockNumber(network);
    for (let idle = 0; !this.stopped && idle < HELD_IDLE_LOOKS;) {
      if (!(await this.inclusion.untilHeight(network, head + 1, HELD_BLOCK_WAIT_MS))) {
        idle++;
        continue;
      }
      idle = 0;
      const [now, mined, inFlight] = await Promise.all([
        this.evm.blockNumber(network),
        this.evm.minedNonce(network, address),
        this.operations.findInFlight(
          this.operations.outsideTransaction(),
          network.chainKey,
          address,
        ),
      ]);
      head = now;
      const sends = inFlight
        .filter((operation) => operation.signedTx && operation.nonce! >= mined)
        .slice(0, HELD_RESEND_MAX)
        .map((operation) => operation.signedTx!);
      const results = await this.evm.broadcastMany(network, sends);
      loop.answers = new Map(sends.map((signedTx, i) => [signedTx, results[i]]));
      if (!results.some((result) => result.kind === 'pool-limit')) return;
    }
  }
}
