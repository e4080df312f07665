import { Inject, Injectable, Logger } from '@nestjs/common';
import { METRICS } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  EvmAdapter,
  decodeSigned,
  maxCost,
  unfundedPastDeadline,
  type EvmNetworkDefinition,
} from '@app/chains';
import { NonceLedgerRepository, OperationRepository, type OperationEntity } from '@app/database';
import { AwaitingFunds } from '../awaiting-funds';
import { pastDeadline } from '../operation-deadline';
import { OperationSettler } from '../operation-settler';
import { WalletFundsMonitor } from '../../wallets/wallet-funds-monitor';
import { walletKey } from './evm-nonce-gaps';

/** How an operation's last error starts while it waits for its wallet's funds. */
const AWAITING_FUNDS_REASON = /^insufficient funds/;

/**
 * Signed EVM operations whose wallet cannot pay for them: what they wait for, and when they may
 * give up.
 *
 * Giving up is safe only when the transaction can no longer land: no node we send to holds it
 * (each refused it, and the node's pending count stops below its nonce), and its bytes were
 * never given to anyone else, so nothing can bring them back; and its nonce is not left as a
 * gap, which would hold every later transaction. So a wallet's unfunded operations give up
 * from the top: only the highest nonces, every one of them past its deadline and waiting for
 * funds, with nothing signed above them. Their nonces go back to the ledger, and the next
 * writes are signed at them. Where this does not hold: a node that took the bytes before the
 * funds went and kept them while refusing them to us (a private pool, a peer that never
 * evicts). Such a transaction can still land once the wallet is funded; the write signed at
 * its nonce then finds the nonce spent by a transaction not its own and is signed again at the
 * next one (it lands once), while the abandoned operation stays `failed` though it landed.
 */
@Injectable()
export class EvmUnfundedOperations {
  private readonly logger = new Logger(EvmUnfundedOperations.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly ledger: NonceLedgerRepository,
    private readonly settler: OperationSettler,
    private readonly funds: WalletFundsMonitor,
  ) {}

  /** The wait of a signed operation the node refused for funds, with where its wallet stands. */
  async awaitingFunds(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
  ): Promise<AwaitingFunds> {
    METRICS.walletFundsShort.inc({ network: network.network, stage: 'signed' });
    this.funds.checkSoon(network.network, operation.signer);
    const { unsigned, fees } = decodeSigned(operation.signedTx!);
    const balance = await this.evm.pendingBalance(network, operation.signer);
    return new AwaitingFunds({
      network,
      address: operation.signer,
      balance,
      needed: maxCost(unsigned.gasLimit, fees),
    });
  }

  /**
   * Fails the wallet's unfunded operations from the top (see the class comment), when
   * `operation` is among them. False when it may not give up yet: it waits on.
   */
  async abandon(network: EvmNetworkDefinition, operation: OperationEntity): Promise<boolean> {
    const deadlineMs = this.config.worker.operationDeadlineMs;
    const announcements: (() => Promise<void>)[] = [];
    await this.ledger.withWalletLock(walletKey(network, operation.signer), async (session) => {
      const [inFlight, pending, next] = await Promise.all([
        this.operations.findInFlight(session.scope, network.chainKey, operation.signer),
        this.evm.pendingNonce(network, operation.signer),
        this.ledger.read(session.scope, network.chainKey, operation.signer),
      ]);
      const top: OperationEntity[] = [];
      for (const candidate of [...inFlight].reverse()) {
        const unfunded =
          AWAITING_FUNDS_REASON.test(candidate.lastError ?? '') &&
          pastDeadline(candidate.retryingSince, deadlineMs);
        if (!unfunded) break;
        top.push(candidate);
      }
      if (!top.some((candidate) => candidate.id === operation.id)) return;
      const lowest = top[top.length - 1].nonce!;
      // Something signed above them, or a node holding one of their nonces: not yet.
      if (next !== top[0].nonce! + 1n || pending > lowest) return;
      await session.transaction(async () => {
        for (const unfunded of top) {
          await this.operations.releaseSigned(session.scope, unfunded.id);
          const error = unfundedPastDeadline(unfunded.lastError!);
          const released = { ...unfunded, nonce: null, signedTx: null, txHash: null };
          announcements.push(await this.settler.failWithin(session.scope, released, error));
        }
        await this.ledger.write(session.scope, network.chainKey, operation.signer, lowest);
      });
      this.logger.warn(
        `Gave up ${top.length} unfunded operation(s) of ${operation.signer} on ${network.network}: nonces ${lowest} to ${top[0].nonce} go to the next writes`,
      );
    });
    for (const announce of announcements) await announce();
    return announcements.length > 0;
  }
}
