import { clamp } from '@app/common';

export interface AdaptiveLimitOptions {
  /** Jobs at once before any latency is known. */
  initial: number;
  /** The floor: enough to make progress whatever the latency says. */
  min: number;
  /** The ceiling (WORKER_CONCURRENCY). */
  max: number;
  /** Latency may rise to this many times its no-load figure before the limit shrinks. */
  tolerance: number;
  /**
   * Jobs the limit grows by for each job that ends while latency holds: with as many jobs ending
   * a round trip as run at once, 0.5 grows it by half a round trip (TCP's slow start, 1, doubles).
   */
  growth: number;
  /** Weight of one job's latency in the short-term average. */
  shortWeight: number;
  /** How long a no-load figure stands before a later window's may replace it (up to 2x this). */
  baselineWindowMs: number;
  /** Jobs seen before the limit first moves: the short-term average settles first. */
  warmUpSamples: number;
}

export const ADAPTIVE_LIMIT_DEFAULTS: Omit<AdaptiveLimitOptions, 'initial' | 'min' | 'max'> = {
  tolerance: 2,
  growth: 0.5,
  shortWeight: 0.1,
  baselineWindowMs: 60_000,
  warmUpSamples: 10,
};

/**
 * How many jobs one queue's worker runs at once, adapted to how long they take (gradient style,
 * after Netflix's concurrency-limits Gradient2): while the short-term average latency stays
 * within `tolerance` times the no-load latency the limit grows; past it the limit shrinks in
 * proportion, by at most half a round trip (each job that ends takes its 1/limit share of the
 * step). Past the point where the machine is busy, more jobs at once add no throughput, only
 * waiting, which every job shares, a light tenant's too.
 *
 * The no-load latency is the lowest short-term average of the last one or two windows
 * (`baselineWindowMs`), not a long-term average as in Gradient2: under a sustained flood a
 * long-term average follows the queued latency up and the limit with it. Should the chain itself
 * get slower, the limit falls to its floor; the latency there is then the no-load latency.
 *
 * On a chain with blocks a job's latency is mostly its wait for a block, so the limit grows
 * until enough jobs are at once to fill blocks; on an instant chain it is mostly CPU, so it
 * stays near what the cores can do.
 */
export class AdaptiveLimit {
  private current: number;
  private short?: number;
  private samples = 0;
  private samplesAtFloor = 0;
  private windowStartedAt?: number;
  private windowLowest = Infinity;
  private previousWindowLowest = Infinity;

  constructor(private readonly options: AdaptiveLimitOptions) {
    this.current = clamp(options.initial, options.min, options.max);
  }

  /** Jobs at once now (a whole number). */
  get limit(): number {
    return Math.round(this.current);
  }

  /** The no-load latency the limit is measured against (ms); undefined before any sample. */
  get baselineMs(): number | undefined {
    const lowest = Math.min(this.windowLowest, this.previousWindowLowest);
    return Number.isFinite(lowest) ? lowest : undefined;
  }

  /** The short-term average latency (ms). */
  get shortMs(): number | undefined {
    return this.short;
  }

  /**
   * One job's latency (ms), with the jobs running when it ended; returns the new limit. A job
   * that ended while fewer than half the limit ran says nothing of whether more would queue.
   */
  sample(latencyMs: number, running: number, now: number): number {
    const o = this.options;
    this.short =
      this.short === undefined ? latencyMs : this.short + o.shortWeight * (latencyMs - this.short);
    this.samples++;
    this.rollWindow(now);
    this.windowLowest = Math.min(this.windowLowest, this.short);
    if (this.samples < o.warmUpSamples) return this.limit;

    const baseline = this.baselineMs!;
    this.samplesAtFloor = this.current <= o.min ? this.samplesAtFloor + 1 : 0;
    if (this.samplesAtFloor >= this.settledAfter() && this.short > o.tolerance * baseline) {
      // As few jobs as allowed for long enough that the average is theirs, and still slow: the
      // chain is slower now, not the queue longer.
      this.windowLowest = this.short;
      this.previousWindowLowest = Infinity;
      return this.limit;
    }
    const gradient = clamp((o.tolerance * baseline) / this.short, 0.5, 1);
    if (gradient === 1 && running < this.current / 2) return this.limit;
    const next =
      gradient === 1 ? this.current + o.growth : this.current * gradient ** (1 / this.current);
    this.current = clamp(next, o.min, o.max);
    return this.limit;
  }

  /** Samples after which the short-term average is 95% made of them. */
  private settledAfter(): number {
    return Math.ceil(3 / this.options.shortWeight);
  }

  private rollWindow(now: number): void {
    this.windowStartedAt ??= now;
    if (now - this.windowStartedAt < this.options.baselineWindowMs) return;
    this.previousWindowLowest = this.windowLowest;
    this.windowLowest = Infinity;
    this.windowStartedAt = now;
  }
}
