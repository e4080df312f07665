import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { REDIS } from './redis.module';
import { SETTLED_CHANNEL } from './operation-jobs';

/**
 * Redis pub/sub of "operation X settled". A hint only: whoever waits re-reads Postgres, and also
 * polls it, since a message can be lost with Redis.
 */
@Injectable()
export class SettlementChannel implements OnApplicationShutdown {
  private readonly logger = new Logger(SettlementChannel.name);
  private subscriber?: Redis;
  private readonly listeners = new Set<(operationId: string) => void>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async publish(operationId: string): Promise<void> {
    await this.redis
      .publish(this.channel(), operationId)
      .catch((error: unknown) =>
        this.logger.warn(`Could not publish settlement: ${String(error)}`),
      );
  }

  /** Calls the listener with each settled operation id; returns the unsubscribe function. */
  async listen(listener: (operationId: string) => void): Promise<() => void> {
    if (!this.subscriber) {
      this.subscriber = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
      this.subscriber.on('message', (_channel: string, operationId: string) => {
        for (const notify of this.listeners) notify(operationId);
      });
      this.subscriber.on('error', (error) => this.logger.warn(`Subscriber: ${String(error)}`));
      await this.subscriber.subscribe(this.channel());
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private channel(): string {
    return `${this.config.queue.prefix}:${SETTLED_CHANNEL}`;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
  }
}
