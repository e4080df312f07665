import type { RateRule } from '@app/config';
import type { RateLimitDecision } from './rate-limit.service';

/** What the shared count (Redis) granted: requests of a window counted ahead of their use. */
export interface LeaseGrant {
  /** Requests granted, 0 when the window's limit is spent. */
  granted: number;
  /** The window's count once the grant is counted. */
  count: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

/** Asks the shared count for up to `size` requests of the bucket; null when it cannot answer. */
export type Grant = (bucket: string, rule: RateRule, size: number) => Promise<LeaseGrant | null>;

interface Lease {
  /** Granted requests not spent yet. */
  left: number;
  /** The window's count when it was granted (this instance's requests in it included). */
  counted: number;
  limit: number;
  expiresAt: number;
}

/**
 * A fixed-window limit whose count lives in a shared store, spent locally: an instance takes a
 * lease of `size` requests at once (counted in the store before any is used), answers from it
 * without a round trip, and asks for another when it is spent or its window ends. Concurrent
 * requests of a bucket wait for one grant together. The limit is never exceeded (a request is
 * answered only from what the store counted); the price is that requests leased but unused by
 * one instance are refused to the others until the window ends (at most `size` per instance),
 * and RateLimit-Remaining counts other instances' leases as spent.
 */
export class LeasedCounter {
  private readonly leases = new Map<string, Lease>();
  private readonly grants = new Map<string, Promise<Lease | null>>();

  constructor(
    private readonly grant: Grant,
    private readonly now: () => number = Date.now,
    private readonly capacity = 10_000,
  ) {}

  /** One request of the bucket; null when the store cannot answer (the caller fails open). */
  async consume(bucket: string, rule: RateRule, size: number): Promise<RateLimitDecision | null> {
    for (;;) {
      const lease = this.leases.get(bucket);
      if (lease && lease.expiresAt > this.now()) {
        if (lease.left > 0) return this.take(lease);
        // The window's whole limit is counted: nothing more until it ends, on any instance.
        if (spent(lease)) return this.refusal(lease);
      }
      const renewed = await this.renew(bucket, rule, size);
      if (!renewed) return null;
      if (renewed.left === 0 && spent(renewed)) return this.refusal(renewed);
      // Others waiting on the same grant spent it first: another round.
    }
  }

  private take(lease: Lease): RateLimitDecision {
    lease.left -= 1;
    const count = lease.counted - lease.left;
    return {
      allowed: true,
      limit: lease.limit,
      remaining: Math.max(0, lease.limit - count),
      resetSeconds: this.resetSeconds(lease),
    };
  }

  private refusal(lease: Lease): RateLimitDecision {
    return {
      allowed: false,
      limit: lease.limit,
      remaining: 0,
      resetSeconds: this.resetSeconds(lease),
    };
  }

  private resetSeconds(lease: Lease): number {
    return Math.max(1, Math.ceil((lease.expiresAt - this.now()) / 1000));
  }

  /** One grant in flight per bucket; its waiters share it. */
  private renew(bucket: string, rule: RateRule, size: number): Promise<Lease | null> {
    let pending = this.grants.get(bucket);
    if (!pending) {
      pending = this.grant(bucket, rule, size)
        .then((grant) => (grant ? this.store(bucket, rule.requests, grant) : null))
        .finally(() => this.grants.delete(bucket));
      this.grants.set(bucket, pending);
    }
    return pending;
  }

  private store(bucket: string, limit: number, grant: LeaseGrant): Lease {
    const lease = {
      left: grant.granted,
      counted: grant.count,
      limit,
      expiresAt: this.now() + grant.ttlMs,
    };
    this.leases.delete(bucket);
    if (this.leases.size >= this.capacity) this.leases.delete(this.leases.keys().next().value!);
    this.leases.set(bucket, lease);
    return lease;
  }
}

function spent(lease: Lease): boolean {
  return lease.counted >= lease.limit;
}
