import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { boundedText, clamp } from '@app/common';
import type { EvmNetworkDefinition } from '../networks/network-definition';
import { EvmAdapter } from './evm.adapter';
import { RecentBlocks } from './recent-blocks';

/** Blocks read per round when the watcher has fallen behind (one JSON-RPC batch). */
const MAX_BLOCKS_PER_ROUND = 50;
/**
 * Pauses between two looks at the chain head when nothing new was mined: from a block until
 * shortly before the next is due (as the blocks seen so far come), then a twentieth of the
 * block interval, within these bounds. A chain of 12 s blocks costs about a dozen looks a
 * block, not one every 10 ms; a block is seen within 50 ms on a chain of 1 s blocks.
 */
const IDLE_POLL_MIN_MS = 10;
const IDLE_POLL_MAX_MS = 1_000;
/** The next block is looked for from this share of the usual interval after the last one. */
const DUE_SHARE = 0.8;
/** Weight of the newest interval in the running estimate of the chain's block interval. */
const INTERVAL_WEIGHT = 0.5;
/** After a failed look (node away), before the next. */
const ERROR_PAUSE_MS = 250;
/**
 * How long the transaction hashes of a block read stay known: a watch registered within this
 * time of its transaction's broadcast learns from them that it was mined before the watch was.
 */
const RECENT_BLOCKS_MS = 60_000;

/** A registration for some transactions of one operation; see `EvmInclusionWatcher.watch`. */
export interface InclusionWatch {
  /** Resolves true once one of them is in a block scanned since `watch`, or false at `maxMs`. */
  wait(maxMs: number): Promise<boolean>;
  /** Stops watching (always call it, whatever `wait` gave). */
  cancel(): void;
}

/**
 * Tells the operations waiting on a network when their transactions are mined, from one scan
 * of each new block's transaction hashes, instead of every operation polling for its receipt:
 * the RPC calls spent waiting grow with blocks, not with operations in flight times polls.
 *
 * A watch is told of the blocks read from its registration on, and of those read in the last
 * RECENT_BLOCKS_MS before it. Whether that covers every block a transaction may be in is
 * `seesSince`: when it does not, a caller checks the receipt once itself after registering
 * (anything mined earlier shows there), then waits.
 */
@Injectable()
export class EvmInclusionWatcher implements OnApplicationShutdown {
  private readonly logger = new Logger(EvmInclusionWatcher.name);
  private readonly scans = new Map<string, BlockScan>();
  private stopped = false;

  constructor(private readonly evm: EvmAdapter) {}

  watch(network: EvmNetworkDefinition, hashes: string[]): InclusionWatch {
    return this.scanOf(network).watch(hashes.map((hash) => hash.toLowerCase()));
  }

  /**
   * Resolves true once the network's head has reached block `height` (at once if it has), or
   * false after `maxMs`: how a mined transaction waits for the blocks that confirm it.
   */
  untilHeight(network: EvmNetworkDefinition, height: number, maxMs: number): Promise<boolean> {
    return this.scanOf(network).untilHeight(height, maxMs);
  }

  /**
   * Whether a watch registered now is told of every block mined since `time` (this process's
   * clock): the network's scan has read the chain without a pause since before then, and knows
   * the blocks it has read since. A transaction broadcast after `time` then needs no look of its
   * own at registration: any block it is in is one the scan has read or will read.
   */
  seesSince(network: EvmNetworkDefinition, time: number): boolean {
    return this.scans.get(network.chainKey)?.seesSince(time) ?? false;
  }

  /**
   * Has the network's scan look at the chain now rather than after its pause, once a head: a
   * transaction just sent is mined at once on a chain that mines on demand (anvil's automine),
   * where the pause, timed by the blocks seen so far, can last a second.
   */
  lookSoon(network: EvmNetworkDefinition): void {
    this.scans.get(network.chainKey)?.lookSoon();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }

  private scanOf(network: EvmNetworkDefinition): BlockScan {
    let scan = this.scans.get(network.chainKey);
    if (!scan) {
      scan = new BlockScan(network, this.evm, this.logger, () => this.stopped);
      this.scans.set(network.chainKey, scan);
    }
    return scan;
  }
}

/** The scan of one network's new blocks, running while anyone waits. */
class BlockScan {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The blocks read in the last RECENT_BLOCKS_MS: their hashes, in the order read. */
  private readonly recent = new RecentBlocks(RECENT_BLOCKS_MS);
  /** When the running scan looked at its first head (this process's clock); unset in a pause. */
  private coveredSince?: number;
  /** Ends the pause between two looks early (`lookSoon`), while the scan pauses. */
  private wake?: () => void;
  /** Asked to look soon during a look: the pause after it is skipped. */
  private lookAgain = false;
  /** The head at which a prompt look was last asked for. */
  private promptedAtHead?: number;
  /** Who waits for the head to reach a height. */
  private readonly climbers = new Set<{ height: number; reached: () => void }>();
  private nextBlock?: number;
  private running = false;
  /** The highest head seen, when it was first seen, and the block interval as seen here. */
  private head?: { number: number; seenAt: number };
  private blockIntervalMs?: number;

  constructor(
    private readonly network: EvmNetworkDefinition,
    private readonly evm: EvmAdapter,
    private readonly logger: Logger,
    private readonly stopped: () => boolean,
  ) {}

  seesSince(time: number): boolean {
    return (
      this.coveredSince !== undefined &&
      this.coveredSince <= time &&
      time >= Date.now() - RECENT_BLOCKS_MS
    );
  }

  lookSoon(): void {
    if (!this.head || this.promptedAtHead === this.head.number) return;
    this.promptedAtHead = this.head.number;
    if (this.wake) this.wake();
    else this.lookAgain = true;
  }

  watch(hashes: string[]): InclusionWatch {
    let notify!: () => void;
    const included = new Promise<true>((resolve) => (notify = () => resolve(true)));
    if (hashes.some((hash) => this.recent.has(hash))) notify();
    for (const hash of hashes) {
      const set = this.waiters.get(hash) ?? new Set();
      set.add(notify);
      this.waiters.set(hash, set);
    }
    if (!this.running) void this.run();
    const cancel = () => {
      for (const hash of hashes) {
        const set = this.waiters.get(hash);
        set?.delete(notify);
        if (set?.size === 0) this.waiters.delete(hash);
      }
    };
    return {
      wait: async (maxMs) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), maxMs);
        });
        return Promise.race([included, timeout]).finally(() => clearTimeout(timer));
      },
      cancel,
    };
  }

  untilHeight(height: number, maxMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const climber = { height, reached: () => finish(true) };
      const timer = setTimeout(() => finish(false), maxMs);
      const finish = (reached: boolean) => {
        clearTimeout(timer);
        this.climbers.delete(climber);
        resolve(reached);
      };
      this.climbers.add(climber);
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while ((this.waiters.size > 0 || this.climbers.size > 0) && !this.stopped()) {
        try {
          if (!(await this.scanNewBlocks())) await this.pause(this.idlePauseMs());
        } catch (error) {
          this.logger.debug(
            `Block scan on ${this.network.network} failed: ${boundedText(error, 300)}`,
          );
          await sleep(ERROR_PAUSE_MS);
        }
      }
    } finally {
      this.running = false;
      // From a pause the scan starts at the head again: whoever registers then checks first.
      this.nextBlock = undefined;
      this.coveredSince = undefined;
    }
  }

  /** Reads the blocks mined since the last round; false when there were none. */
  private async scanNewBlocks(): Promise<boolean> {
    const askedAt = Date.now();
    const head = await this.evm.blockNumber(this.network);
    this.clock(head);
    for (const climber of this.climbers) if (climber.height <= head) climber.reached();
    if (this.nextBlock === undefined) {
      // Every block mined after `askedAt` is this head or above it: all read from here on.
      this.nextBlock = head;
      this.coveredSince = askedAt;
    }
    if (head < this.nextBlock) return false;
    const last = Math.min(head, this.nextBlock + MAX_BLOCKS_PER_ROUND - 1);
    const first = this.nextBlock;
    const blocks = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    const hashesByBlock = await this.evm.blockTransactionHashes(this.network, blocks);
    for (const hashes of hashesByBlock) {
      // A node behind the one that gave the head (failover): that block on the next round.
      if (hashes === null) break;
      const lowerCase = hashes.map((hash) => hash.toLowerCase());
      for (const hash of lowerCase) {
        const waiting = this.waiters.get(hash);
        if (waiting) for (const notify of waiting) notify();
      }
      this.recent.add(lowerCase);
      this.nextBlock += 1;
    }
    return true;
  }

  private pause(ms: number): Promise<void> {
    if (this.lookAgain) {
      this.lookAgain = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /**
   * Times a new head: the interval since the last one, over the blocks between them. A lower
   * head (a reset node, another endpoint behind) is a new reference, not a sample.
   */
  private clock(head: number): void {
    const now = Date.now();
    if (head === this.head?.number) return;
    if (this.head && head > this.head.number) {
      const interval = (now - this.head.seenAt) / (head - this.head.number);
      this.blockIntervalMs =
        this.blockIntervalMs === undefined
          ? interval
          : (1 - INTERVAL_WEIGHT) * this.blockIntervalMs + INTERVAL_WEIGHT * interval;
    }
    this.head = { number: head, seenAt: now };
  }

  private idlePauseMs(): number {
    if (this.blockIntervalMs === undefined || !this.head) return IDLE_POLL_MIN_MS;
    const untilDue = DUE_SHARE * this.blockIntervalMs - (Date.now() - this.head.seenAt);
    const step = this.blockIntervalMs / 20;
    return clamp(Math.max(untilDue, step), IDLE_POLL_MIN_MS, IDLE_POLL_MAX_MS);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
