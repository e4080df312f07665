import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { RedisConnection } from '@app/queue';
import { APP_CONFIG, type AppConfig, type RateRule } from '@app/config';
import { REDIS, RedisDeadlineExceeded, redisDeadline } from '@app/queue';
import { LeasedCounter, type LeaseGrant } from './leased-counter';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

/** A Lua script and its SHA1, so it is sent whole only to a Redis that does not know it yet. */
class RedisScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

/**
 * A fixed window per key, counted in Redis: INCR, and PEXPIRE when the key has no expiry yet, in
 * one Lua script, so concurrent requests on any number of API instances cannot race and the
 * window is timed by the Redis clock alone (API hosts may disagree about the time). The window
 * starts at a key's first request. A key that lost its expiry gets one again, so a count never
 * sticks forever.
 */
const CONSUME = new RedisScript(`
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`);

/**
 * Gives one counted request back, within the window only: once the key has expired there is
 * nothing to give back, and a DECR would create a key without expiry.
 */
const REFUND = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('DECR', KEYS[1])
end
return 0
`);

/**
 * Grants up to ARGV[3] requests of the window at once (a lease, see LeasedCounter): no more than
 * the limit (ARGV[2]) leaves, counted before any is used. Timed like CONSUME; a spent window
 * grants 0 and counts nothing. Replies { granted, count, ttl }.
 */
const LEASE = new RedisScript(`
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local grant = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) - count)
if grant > 0 then
  count = redis.call('INCRBY', KEYS[1], grant)
else
  grant = 0
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 or (ttl == -2 and grant > 0) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
elseif ttl < 0 then
  ttl = tonumber(ARGV[1])
end
return { grant, count, ttl }
`);

/**
 * The share of a limit one instance leases at once. A leased request not used is lost to the
 * window (refused to the other instances until it ends): one percent of the limit per instance
 * at most. Below LEASE_MIN a request is counted in Redis by itself, exactly as before.
 */
const LEASE_SHARE = 0.01;
const LEASE_MIN = 2;

/** A slow Redis must not slow every API call: past this the request goes through unlimited. */
const COUNT_TIMEOUT_MS = 500;
/**
 * After a count Redis left unanswered, counts fail open at once for this long: a stalled Redis
 * costs one wait every so often, not one for each bucket of each request (a write counts two).
 */
const UNANSWERED_PAUSE_MS = 2_000;
const WARN_EVERY_MS = 30_000;
const LIVE_STATUSES = new Set(['ready', 'connect', 'connecting']);

/**
 * Every throttle of the API (per API key, per account, per client address and email on sign-in
 * and registration) counts here, each under its own bucket name, in the deployment's key space
 * (`<QUEUE_PREFIX>:rate-limit:<bucket>`).
 */
@Injectable()
export class RateLimitService {
  private readonly logger = new Logger('RateLimit');
  private readonly keyPrefix: string;
  private readonly leased = new LeasedCounter((bucket, rule, size) =>
    this.lease(bucket, rule, size),
  );
  private lastWarning = 0;
  private unansweredUntil = 0;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: RedisConnection,
  ) {
    this.keyPrefix = `${config.queue.prefix}:rate-limit:`;
  }

  /**
   * Counts one request in the bucket. Null when Redis cannot answer: the caller fails open, since
   * refusing every API call while Redis is away would turn a degraded dependency into an outage.
   */
  async consume(bucket: string, rule: RateRule): Promise<RateLimitDecision | null> {
    const { requests, windowSeconds } = rule;
    try {
      const reply = await this.run(CONSUME, bucket, windowSeconds * 1000);
      if (!Array.isArray(reply) || reply.length !== 2) {
        throw new Error(`unexpected rate limit script reply ${JSON.stringify(reply)}`);
      }
      const [count, ttlMs] = reply.map(Number);
      return {
        allowed: count <= requests,
        limit: requests,
        remaining: Math.max(0, requests - count),
        resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
      };
    } catch (error) {
      this.warn(error);
      return null;
    }
  }

  /**
   * Counts one request like `consume`, from a lease of the limit when the limit is large enough
   * (LEASE_SHARE of it at least LEASE_MIN): no Redis round trip for most requests of a busy key.
   * The limit holds across instances; what differs is in LeasedCounter. Not for a bucket that
   * is refunded: a refund gives back to Redis what a lease may still hold.
   */
  async consumeLeased(bucket: string, rule: RateRule): Promise<RateLimitDecision | null> {
    const size = Math.floor(rule.requests * LEASE_SHARE);
    if (size < LEASE_MIN) return this.consume(bucket, rule);
    return this.leased.consume(bucket, rule, size);
  }

  /** Takes back one counted request (e.g. a sign-in that succeeded); best effort. */
  async refund(bucket: string): Promise<void> {
    try {
      await this.run(REFUND, bucket);
    } catch (error) {
      this.warn(error);
    }
  }

  private async lease(bucket: string, rule: RateRule, size: number): Promise<LeaseGrant | null> {
    try {
      const reply = await this.run(LEASE, bucket, rule.windowSeconds * 1000, rule.requests, size);
      if (!Array.isArray(reply) || reply.length !== 3) {
        throw new Error(`unexpected rate limit lease reply ${JSON.stringify(reply)}`);
      }
      const [granted, count, ttlMs] = reply.map(Number);
      return { granted, count, ttlMs };
    } catch (error) {
      this.warn(error);
      return null;
    }
  }

  private async run(script: RedisScript, bucket: string, ...args: number[]): Promise<unknown> {
    // While ioredis reconnects it would queue the command; answer at once instead.
    if (!LIVE_STATUSES.has(this.redis.status)) throw new Error(`connection ${this.redis.status}`);
    if (Date.now() < this.unansweredUntil) throw new Error('a count went unanswered just now');
    const key = this.keyPrefix + bucket;
    const evaluate = async (): Promise<unknown> => {
      try {
        return await this.redis.evalsha(script.sha, 1, key, ...args);
      } catch (error) {
        if (!String(error).includes('NOSCRIPT')) throw error;
        return this.redis.eval(script.source, 1, key, ...args);
      }
    };
    return redisDeadline(evaluate(), COUNT_TIMEOUT_MS, 'count the request').catch(
      (error: unknown) => {
        if (error instanceof RedisDeadlineExceeded) {
          this.unansweredUntil = Date.now() + UNANSWERED_PAUSE_MS;
        }
        throw error;
      },
    );
  }

  /** One line per WARN_EVERY_MS: an outage should not flood the log with one line a request. */
  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn(
      `Rate limits are not enforced: Redis did not answer (${String(error)}). Requests go through.`,
    );
  }
}
