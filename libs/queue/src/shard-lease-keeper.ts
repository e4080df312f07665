import type { ConcreteNetwork } from '@app/config';
import { queueShardOf } from './queue-shard';
import { planShards } from './shard-plan';
import type { ShardLeases, ShardRef } from './shard-leases';

/** What consumes a shard's queue while its lease is held (the worker's BullMQ Worker). */
export interface ShardConsumer {
  /**
   * Starts consuming. `orphaned`: the shard's last holder died holding it, so jobs it was
   * running are still marked active, each until its lock lapses: the consumer takes them back
   * first, so they resume now rather than after the job lock time.
   */
  start(shard: ShardRef, orphaned: boolean): void | Promise<void>;
  /**
   * Stops consuming: `graceful` waits for the running jobs (a release), otherwise it stops
   * at once (the lease is another worker's already).
   */
  stop(shard: ShardRef, graceful: boolean): Promise<void>;
}

interface Lease extends ShardRef {
  releasing: boolean;
}

/**
 * Between rounds while this worker holds less than its share: the shards it waits for are being
 * given back (their jobs finishing) or their dead owner's leases are running out, and it takes
 * each one this soon after it is free rather than up to a third of the lease time later.
 */
const CATCH_UP_MS = 250;

interface KeeperLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * Keeps this worker's share of each network's shards: every third of the lease time it renews
 * its leases (and its heartbeat) in one round trip, stops a shard whose lease another worker
 * holds, gives back what exceeds its share (gracefully, in the background: the lease is renewed
 * until the shard's jobs have finished, then deleted) and takes free shards up to its share.
 *
 * Leases spare workers from contending for a wallet; they are not what makes an operation run
 * once (a worker paused past its lease may overlap another for a moment): the Postgres locks
 * and conditional status updates do that.
 */
export class ShardLeaseKeeper {
  private readonly held = new Map<string, Lease>();
  private readonly draining = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  private stopping = false;
  /** Whether a round has registered this worker in Redis yet. */
  private registered = false;
  /** Whether the last round left this worker short of its share of some network. */
  private short = false;

  constructor(
    private readonly leases: ShardLeases,
    private readonly options: {
      networks: readonly ConcreteNetwork[];
      shards: number;
      ttlMs: number;
      /**
       * How long a shard given back to a newcomer waits for its running jobs before the lease
       * is handed over anyway (they finish here); the shard takes no new job meanwhile.
       */
      handOverAfterMs: number;
    },
    private readonly consumer: ShardConsumer,
    private readonly logger: KeeperLogger,
  ) {}

  /**
   * A first round (shards taken while the application boots), then one every third of the TTL,
   * or sooner while this worker is short of its share. A first round that fails (Redis refusing
   * or away for a moment) is tried again soon, as a later round would be: the worker starts and
   * takes its shards once Redis answers, where it used to exit.
   */
  async start(): Promise<void> {
    try {
      await this.renewNow();
    } catch (error) {
      this.logger.warn(
        `Shard leases not taken at start, tried again soon: ${(error as Error).message}`,
      );
      this.short = true;
    }
    this.schedule();
  }

  /** The shards this worker consumes now (not those being released), for tests and logs. */
  owned(network: ConcreteNetwork): number[] {
    return [...this.held.values()]
      .filter((lease) => lease.network === network && !lease.releasing)
      .map((lease) => lease.shard)
      .sort((a, b) => a - b);
  }

  /** One round now (or the one under way). */
  renewNow(): Promise<void> {
    this.round ??= this.runRound().finally(() => (this.round = undefined));
    return this.round;
  }

  /**
   * Graceful stop (SIGTERM): stop every shard, its running jobs finished, while the leases are
   * still renewed; then delete them and leave the live sets, so others take over at once.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    try {
      await this.round?.catch(() => undefined);
      const leases = [...this.held.values()].filter((lease) => !lease.releasing);
      await Promise.all(leases.map((lease) => this.release(lease)));
      // Releases under way, and shards handed over whose jobs still run here.
      while (this.draining.size > 0) await Promise.all([...this.draining]);
      await this.leases.leave(this.options.networks);
    } finally {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private schedule(): void {
    this.timer = setTimeout(
      () => {
        this.renewNow()
          .catch((error: unknown) =>
            this.logger.warn(`Shard leases not renewed: ${(error as Error).message}`),
          )
          .finally(() => {
            if (this.timer) this.schedule();
          });
      },
      this.short ? Math.min(CATCH_UP_MS, this.renewEveryMs()) : this.renewEveryMs(),
    );
    this.timer.unref();
  }

  private renewEveryMs(): number {
    return Math.max(1, Math.floor(this.options.ttlMs / 3));
  }

  private async runRound(): Promise<void> {
    this.short = false;
    const held = [...this.held.values()];
    const { live, lost, forgotten } = await this.leases.renew(this.options.networks, held);
    for (const ref of lost) {
      const lease = this.held.get(keyOf(ref));
      if (!lease) continue;
      this.held.delete(keyOf(ref));
      this.logger.warn(`Lost the lease of ${ref.network} shard ${ref.shard} to another worker`);
      await this.consumer.stop(ref, false);
    }
    const firstRound = !this.registered;
    this.registered = true;
    if (this.stopping) return;
    if (forgotten && !firstRound) {
      // Redis lost its state (flushed?): the others have not re-registered yet, so the live
      // counts are too low; taking shards now would take theirs. Wait one round.
      this.logger.warn('Redis had forgotten this worker (flushed?): its leases taken back');
      return;
    }
    const taken: string[] = [];
    for (const network of this.options.networks) {
      const mine = [...this.held.values()].filter((lease) => lease.network === network);
      const plan = planShards({
        shards: this.options.shards,
        liveWorkers: live.get(network)?.count ?? 1,
        rank: live.get(network)?.rank ?? 0,
        owned: mine.filter((lease) => !lease.releasing).map((lease) => lease.shard),
        releasing: mine.filter((lease) => lease.releasing).length,
      });
      for (const shard of plan.release) {
        this.releaseInBackground(this.held.get(keyOf({ network, shard }))!);
      }
      if (plan.acquire > 0) {
        const shards = await this.acquire(network, plan.acquire);
        if (shards.length) taken.push(`${network} ${shards.join(',')}`);
        if (shards.length < plan.acquire) this.short = true;
      }
    }
    if (taken.length) this.logger.log(`Took shards: ${taken.join('; ')}`);
  }

  private async acquire(network: ConcreteNetwork, count: number): Promise<number[]> {
    const { shards } = this.options;
    // Each worker tries the free shards from its own starting point: fewer collisions.
    const first = queueShardOf(this.leases.workerId, shards);
    const candidates = Array.from({ length: shards }, (_, i) => (first + i) % shards).filter(
      (shard) => !this.held.has(keyOf({ network, shard })),
    );
    const taken = await this.leases.acquire(network, candidates, count);
    for (const { shard, orphaned } of taken) {
      this.held.set(keyOf({ network, shard }), { network, shard, releasing: false });
      await this.consumer.start({ network, shard }, orphaned);
    }
    return taken.map(({ shard }) => shard);
  }

  /**
   * A shard given back to rebalance: no new job is taken from it at once; the lease goes when
   * its running jobs have finished, or after `handOverAfterMs` with them still running. A job
   * that waits long (a receipt on a congested chain) must not keep the shard's new jobs from
   * every worker until it ends; the new owner may meet the old one on a wallet's send lock
   * meanwhile, which costs a wait, never a duplicate (docs/scheduling-and-leases.md).
   */
  private releaseInBackground(lease: Lease): void {
    const draining = this.release(lease, this.options.handOverAfterMs)
      .then((released) => {
        if (released) this.logger.log(`Gave back ${lease.network} shard ${lease.shard}`);
      })
      .finally(() => this.draining.delete(draining));
    this.draining.add(draining);
  }

  /** A consumer stopping after its lease was handed over: a graceful stop still waits for it. */
  private lingering(stopped: Promise<void>): void {
    const done: Promise<void> = stopped
      .catch((error: unknown) =>
        this.logger.warn(`A handed-over shard did not stop cleanly: ${(error as Error).message}`),
      )
      .finally(() => this.draining.delete(done));
    this.draining.add(done);
  }

  /**
   * Stops the shard's consumer (its running jobs finish; the lease is renewed meanwhile), then
   * deletes the lease if it is still this worker's (true then); with `handOverAfterMs`, deletes
   * it by then even if jobs still run. Never throws: a lease not deleted expires.
   */
  private async release(lease: Lease, handOverAfterMs?: number): Promise<boolean> {
    lease.releasing = true;
    const { network, shard } = lease;
    try {
      const stopped = this.consumer.stop(lease, true);
      const finished =
        handOverAfterMs === undefined ||
        (await Promise.race([stopped.then(() => true), delay(handOverAfterMs, false)]));
      if (!finished) {
        this.logger.warn(
          `${network} shard ${shard} handed over after ${handOverAfterMs} ms with jobs still running here`,
        );
        this.lingering(stopped);
      } else {
        await stopped;
      }
      // Lost meanwhile (and maybe taken again): not ours to delete.
      if (this.held.get(keyOf(lease)) !== lease) return false;
      this.held.delete(keyOf(lease));
      // A round under way may have taken it in its renewals: delete after it.
      await this.round?.catch(() => undefined);
      return await this.leases.release(lease);
    } catch (error) {
      if (this.held.get(keyOf(lease)) === lease) this.held.delete(keyOf(lease));
      this.logger.warn(`${network} shard ${shard} not released: ${(error as Error).message}`);
      return false;
    }
  }
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}

function keyOf({ network, shard }: ShardRef): string {
  return `${network}:${shard}`;
}
