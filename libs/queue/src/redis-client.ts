import Redis, { type RedisOptions } from 'ioredis';
import type { AppConfig } from '@app/config';

/**
 * A Redis connection of the configured topology (docs/deployment.md#redis): one node by URL, or
 * the primary a set of Sentinels names. Every connection of the service is made here.
 *
 * With Sentinels the client asks them for the primary at every (re)connection. `failoverDetector`
 * also listens for their `+switch-master`, so a connection to a primary demoted while alive moves
 * to the new one at once, not at its next error; a command refused `READONLY` reconnects too.
 * BullMQ workers are reported to hang on a demoted node without this (bullmq issue 3088); on this
 * machine's Redis 7.0 the demoted node drops its clients itself, and test/e2e/redis-sentinel
 * passes without the two, so they guard servers that do not.
 */
export function redisClient(
  config: Pick<AppConfig, 'redisUrl' | 'redisSentinel' | 'redisAuth'>,
  options: RedisOptions = {},
): Redis {
  const { redisSentinel: sentinel, redisAuth: auth } = config;
  if (!sentinel) return new Redis(config.redisUrl, { ...auth, ...options });
  return new Redis({
    sentinels: sentinel.sentinels,
    name: sentinel.name,
    ...auth,
    failoverDetector: true,
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    // A promotion takes a second or two: try again at least every second meanwhile (ioredis
    // backs off to 2 s), so the new primary is used within a second of being named.
    retryStrategy: (times) => Math.min(times * 50, 1_000),
    ...options,
  });
}
