import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { RedisConnection } from './redis-client';
import { redisClient } from './redis-client';
import { APP_CONFIG, type AppConfig } from '@app/config';

/** Injection token of the shared ioredis client (created when the module starts, not on import). */
export const REDIS = Symbol('REDIS');

/**
 * The shared client's options. Auto-pipelining: the commands of one event-loop turn (a rate-limit
 * count per request) go out in one socket write; one write each was a tenth of a busy API's CPU
 * (on a Cluster `redisClient` leaves it off: see there).
 */
export const SHARED_REDIS_OPTIONS = {
  maxRetriesPerRequest: 3,
  enableOfflineQueue: true,
  enableAutoPipelining: true,
} as const;

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => redisClient(config, SHARED_REDIS_OPTIONS),
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisConnection) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status !== 'end') await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
