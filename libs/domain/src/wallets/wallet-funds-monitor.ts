import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { boundedText } from '@app/common';
import { isNetwork } from '@app/config';
import { ChainRegistry, NetworkRegistry } from '@app/chains';
import { WalletFundsRepository, type WatchedWallet } from '@app/database';
import { WalletBalanceGauge } from './wallet-balance-gauge';
import { WalletFundsRecorder } from './wallet-funds-recorder';

/** A wallet with an operation this recent is read every round (besides unsettled and low ones). */
const ACTIVE_WINDOW_MS = 5 * 60_000;
/** Wallets read per round at most (the least recently read first), and at once. */
const WALLETS_PER_ROUND = 500;
const READS_AT_ONCE = 8;
/** checkSoon requests arriving within this are read together, each wallet once. */
const CHECK_SOON_DELAY_MS = 250;
const MAX_PENDING_REQUESTS = 1_000;

interface CheckRequest {
  network: string;
  address: string;
}

/**
 * Reads the native balances of the managed wallets that matter now and hands them to the
 * recorder, which announces a wallet falling below (or back above) its network's threshold.
 * An idle deployment reads nothing: only wallets with recent or unsettled operations, or
 * flagged low, are read, every WALLET_BALANCE_CHECK_MS (the worker's loop), or at once when the
 * send path learns that a node refused a wallet's transaction for funds (`checkSoon`).
 */
@Injectable()
export class WalletFundsMonitor implements OnModuleDestroy {
  private readonly logger = new Logger(WalletFundsMonitor.name);
  private readonly gauge = new WalletBalanceGauge();
  private readonly requested = new Map<string, CheckRequest>();
  private requestTimer?: NodeJS.Timeout;
  private requestedChecks: Promise<void> = Promise.resolve();

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
    private readonly funds: WalletFundsRepository,
    private readonly recorder: WalletFundsRecorder,
  ) {}

  /** One round over the wallets worth reading now; returns how many were read. */
  async checkActive(): Promise<number> {
    const since = new Date(Date.now() - ACTIVE_WINDOW_MS);
    const wallets = await this.funds.listToCheck(since, WALLETS_PER_ROUND);
    await this.checkAll(wallets);
    this.gauge.forgetIdle();
    return wallets.length;
  }

  /**
   * Reads the wallet's balance shortly (requests close together are read once), if it is a
   * managed wallet on that network. Returns at once and never throws: callers are on the send
   * path, which must not wait for it nor fail because of it.
   */
  checkSoon(network: string, address: string): void {
    try {
      if (this.requested.size >= MAX_PENDING_REQUESTS) return;
      this.requested.set(`${network}|${address}`, { network, address });
      if (this.requestTimer) return;
      this.requestTimer = setTimeout(() => this.runRequested(), CHECK_SOON_DELAY_MS);
      this.requestTimer.unref();
    } catch (error) {
      this.logger.warn(`Balance check not requested: ${boundedText(error, 300)}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.requestTimer);
    await this.requestedChecks;
  }

  /** Runs after the previous batch of requests, so that batches never overlap. */
  private runRequested(): void {
    this.requestTimer = undefined;
    const requests = [...this.requested.values()];
    this.requested.clear();
    this.requestedChecks = this.requestedChecks
      .then(async () => {
        const wallets = await Promise.all(requests.map((request) => this.managedWallet(request)));
        await this.checkAll(wallets.filter((wallet) => wallet !== null));
      })
      .catch((error: unknown) =>
        this.logger.warn(`Requested balance checks failed: ${boundedText(error, 300)}`),
      );
  }

  /** The managed wallet a request names, or null when it names none. */
  private async managedWallet({ network, address }: CheckRequest): Promise<WatchedWallet | null> {
    if (!isNetwork(network)) return null;
    const definition = this.networks.resolve(network);
    const canonical = this.chains.adapter(definition.family).normalizeAddress(address);
    if (!canonical) return null;
    const accountId = await this.funds.managedWalletOwner(definition.family, canonical);
    return accountId ? { accountId, network: definition.network, address: canonical } : null;
  }

  private async checkAll(wallets: WatchedWallet[]): Promise<void> {
    const queue = [...wallets];
    const reader = async () => {
      for (let wallet = queue.shift(); wallet; wallet = queue.shift()) await this.check(wallet);
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, queue.length) }, reader));
  }

  /** A wallet whose chain does not answer is skipped this round (and read again the next). */
  private async check(wallet: WatchedWallet): Promise<void> {
    const definition = this.networks.resolve(wallet.network);
    const readAt = new Date();
    try {
      const adapter = this.chains.adapter(definition.family);
      const balance = await adapter.getNativeBalance(definition, wallet.address);
      this.gauge.set(wallet.network, wallet.address, balance, definition.currency.decimals);
      await this.recorder.record(wallet, balance, readAt);
    } catch (error) {
      this.logger.warn(
        `Balance check of ${wallet.network} ${wallet.address} failed: ${boundedText(error, 300)}`,
      );
    }
  }
}
