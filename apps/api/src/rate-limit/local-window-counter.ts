import type { RateRule } from '@app/config';
import type { RateLimitDecision } from './rate-limit.service';

interface Window {
  count: number;
  endsAt: number;
}

/**
 * A fixed-window count per bucket in this process's memory: the stand-in for a shared count
 * (Redis) that did not answer, for the limits that must not fail open. Every request is counted
 * here as well as in the shared store, so when the store stops answering mid-burst this count
 * already holds the burst's earlier requests. It bounds one instance, not the deployment: N
 * instances admit up to N times the limit while the store is away.
 */
export class LocalWindowCounter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly capacity = 50_000,
  ) {}

  consume(bucket: string, rule: RateRule): RateLimitDecision {
    const now = this.now();
    let window = this.windows.get(bucket);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + rule.windowSeconds * 1000 };
      this.remember(bucket, window);
    }
    window.count += 1;
    return {
      allowed: window.count <= rule.requests,
      limit: rule.requests,
      remaining: Math.max(0, rule.requests - window.count),
      resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)),
    };
  }

  refund(bucket: string): void {
    const window = this.windows.get(bucket);
    if (window && window.endsAt > this.now() && window.count > 0) window.count -= 1;
  }

  /**
   * Past `capacity` buckets the oldest window goes (a window is re-inserted when it starts
   * again): memory stays bounded under a spray of emails, and what is forgotten is the window
   * started longest ago.
   */
  private remember(bucket: string, window: Window): void {
    this.windows.delete(bucket);
    if (this.windows.size >= this.capacity) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(bucket, window);
  }
}
