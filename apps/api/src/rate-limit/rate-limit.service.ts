import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { REDIS, redisDeadline } from '@app/queue';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

/**
 * A fixed window per key, counted in Redis: INCR, and PEXPIRE when the key has no expiry yet, in
 * one Lua script, so concurrent requests on any number of API instances cannot race and the
 * window is timed by the Redis clock alone (API hosts may disagree about the time). The window
 * starts at a key's first request. A key that lost its expiry gets one again, so a count never
 * sticks forever.
 */
const SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;
const SCRIPT_SHA = createHash('sha1').update(SCRIPT).digest('hex');
const KEY_PREFIX = 'ais:rate-limit:';

/** A slow Redis must not slow every API call: past this the request goes through unlimited. */
const COUNT_TIMEOUT_MS = 500;
const WARN_EVERY_MS = 30_000;
const LIVE_STATUSES = new Set(['ready', 'connect', 'connecting']);

@Injectable()
export class RateLimitService {
  private readonly logger = new Logger('RateLimit');
  private lastWarning = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /**
   * Counts one request for the key. Null when Redis cannot answer: the caller fails open, since
   * refusing every API call while Redis is away would turn a degraded dependency into an outage.
   */
  async consume(id: string): Promise<RateLimitDecision | null> {
    const { requests, windowSeconds } = this.config.rateLimit;
    try {
      // While ioredis reconnects it would queue the command; answer at once instead.
      if (!LIVE_STATUSES.has(this.redis.status)) throw new Error(`connection ${this.redis.status}`);
      const [count, ttlMs] = await redisDeadline(
        this.run(KEY_PREFIX + id, windowSeconds * 1000),
        COUNT_TIMEOUT_MS,
        'count the request',
      );
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

  private async run(key: string, windowMs: number): Promise<[number, number]> {
    let result: unknown;
    try {
      result = await this.redis.evalsha(SCRIPT_SHA, 1, key, windowMs);
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      result = await this.redis.eval(SCRIPT, 1, key, windowMs);
    }
    if (!Array.isArray(result) || result.length !== 2) {
      throw new Error(`unexpected rate limit script reply ${JSON.stringify(result)}`);
    }
    return [Number(result[0]), Number(result[1])];
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
