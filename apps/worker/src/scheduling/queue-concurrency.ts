import { METRICS } from '@app/common';
import type { AppConfig } from '@app/config';
import { ADAPTIVE_LIMIT_DEFAULTS, AdaptiveLimit } from './adaptive-limit';

/** Jobs in flight before the first latencies are known: enough to pipeline a few blocks. */
const INITIAL_IN_FLIGHT = 32;

/** What a queue's consumer (a BullMQ Worker) exposes of its concurrency. */
export interface ConcurrencyKnob {
  concurrency: number;
}

/**
 * The jobs in flight of one queue's consumer: fixed at WORKER_CONCURRENCY, or (with
 * WORKER_ADAPTIVE_CONCURRENCY) following their latency (see AdaptiveLimit) with
 * WORKER_CONCURRENCY as the ceiling. Only the runs of operations that ended with a verdict are
 * samples: a run parked for later spent its round waiting on purpose, and a failed one says
 * nothing of the queue.
 */
export class QueueConcurrency {
  private running = 0;
  private readonly limit?: AdaptiveLimit;

  constructor(
    private readonly queueName: string,
    private readonly knob: ConcurrencyKnob,
    config: AppConfig['worker'],
    private readonly now: () => number = () => performance.now(),
  ) {
    if (config.adaptiveConcurrency) {
      this.limit = new AdaptiveLimit({
        ...ADAPTIVE_LIMIT_DEFAULTS,
        initial: INITIAL_IN_FLIGHT,
        min: Math.min(config.minConcurrency, config.concurrency),
        max: config.concurrency,
      });
    }
    this.apply(this.limit?.limit ?? config.concurrency);
  }

  /** A job starts; call the returned function when it ends, saying whether it ended for good. */
  started(): (settled: boolean) => void {
    const startedAt = this.now();
    this.running++;
    return (settled) => {
      this.running--;
      if (!settled || !this.limit) return;
      this.apply(this.limit.sample(this.now() - startedAt, this.running + 1, Date.now()));
    };
  }

  private apply(limit: number): void {
    if (this.knob.concurrency === limit) return;
    this.knob.concurrency = limit;
    METRICS.jobsInFlightLimit.set({ queue: this.queueName }, limit);
  }
}
