import type { EvmReceipt } from '@app/chains';
import type { EvmInclusionWatcher, EvmNetworkDefinition, InclusionWatch } from '@app/chains';

/** Without news from the block scan, an operation asks for its receipts itself this often. */
const SAFETY_LOOK_MS = 10_000;

/** The version of an operation's transaction that was mined, with its receipt. */
export interface Landed {
  receipt: EvmReceipt;
  txHash: string;
}

/**
 * The block scan's watch over an operation's versions, kept from one round of the wait to the
 * next (a receipt call per round and version would cost the node every second what the scan
 * costs once a block). It asks for the receipts itself when it is registered (a version mined
 * before then is in no block the scan reads for it), when the scan saw one of them mined, and
 * every SAFETY_LOOK_MS: the scan reads each height once, so a version a reorg moved to a height
 * already read shows only there.
 */
export class VersionWatch {
  private watch?: InclusionWatch;
  private watched = '';
  private lookedAt = 0;
  /**
   * Told of a block that holds a version, yet no receipt: the node asked may lag the one the
   * scan read (failover). From then on it asks at every round, as it cannot be told twice.
   */
  private eager = false;

  constructor(
    private readonly inclusion: EvmInclusionWatcher,
    private readonly network: EvmNetworkDefinition,
    private readonly look: (hashes: string[]) => Promise<Landed | null>,
  ) {}

  /** Watches `hashes` from now on and looks for their receipts once: the one mined, or null. */
  register(hashes: string[]): Promise<Landed | null> {
    this.watchFromNow(hashes);
    return this.lookNow(hashes);
  }

  /**
   * Watches `hashes` from now on without looking: for versions sent while the block scan reads
   * every block they may be in (`EvmInclusionWatcher.seesSince`), so it tells of their block.
   * The scan looks soon, should the chain have mined them at once.
   */
  follow(hashes: string[]): void {
    this.watchFromNow(hashes);
    this.lookedAt = Date.now();
    this.inclusion.lookSoon(this.network);
  }

  /** Waits up to `maxMs` for one of `hashes` to be mined: its receipt, or null. */
  async wait(hashes: string[], maxMs: number): Promise<Landed | null> {
    const registering = !this.watch || hashes.join(',') !== this.watched;
    if (registering) {
      const landed = await this.register(hashes);
      if (landed) return landed;
    }
    if (await this.watch!.wait(maxMs)) {
      // Told once: the next round registers again (and looks, should this one find nothing).
      this.cancel();
      const landed = await this.lookNow(hashes);
      this.eager ||= landed === null;
      return landed;
    }
    const due = this.eager || Date.now() - this.lookedAt >= SAFETY_LOOK_MS;
    return due && !registering ? this.lookNow(hashes) : null;
  }

  /**
   * The registration now running, handed to whoever watches next (a parked check), so no block
   * between this round and that watch goes unseen; this watch keeps none. A fresh one when none
   * runs (it was just told, and cancelled).
   */
  handOver(hashes: string[]): InclusionWatch {
    const watch = this.watch && this.watched === hashes.join(',') ? this.watch : undefined;
    this.watch = undefined;
    return watch ?? this.inclusion.watch(this.network, hashes);
  }

  cancel(): void {
    this.watch?.cancel();
    this.watch = undefined;
  }

  private watchFromNow(hashes: string[]): void {
    this.cancel();
    this.watch = this.inclusion.watch(this.network, hashes);
    this.watched = hashes.join(',');
  }

  private lookNow(hashes: string[]): Promise<Landed | null> {
    this.lookedAt = Date.now();
    return this.look(hashes);
  }
}
