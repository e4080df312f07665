import { Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { RedisConnection } from './redis-client';
import { redisClient } from './redis-client';
import { LogContext } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { REDIS } from './redis.module';

/**
 * A Redis pub/sub channel of short messages between processes. A hint only: a message can be
 * lost with Redis, so whoever listens also has another way to learn the news.
 */
export abstract class RedisChannel implements OnApplicationShutdown {
  private readonly logger = new Logger(this.constructor.name);
  private subscriber?: RedisConnection;
  private subscribed?: Promise<void>;
  private readonly listeners = new Set<(message: string) => void>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: RedisConnection,
  ) {}

  /** The channel's name under the deployment's queue prefix. */
  protected abstract readonly topic: string;

  async publish(message: string): Promise<void> {
    await this.redis
      .publish(this.channel(), message)
      .catch((error: unknown) => this.logger.warn(`Could not publish: ${String(error)}`));
  }

  /** Calls the listener with each message; returns the unsubscribe function. */
  async listen(listener: (message: string) => void): Promise<() => void> {
    this.subscribed ??= LogContext.outside(() => this.subscribe());
    await this.subscribed;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async subscribe(): Promise<void> {
    this.subscriber = redisClient(this.config, { maxRetriesPerRequest: null });
    this.subscriber.on('message', (_channel: string, message: string) => {
      for (const notify of this.listeners) notify(message);
    });
    this.subscriber.on('error', (error) => this.logger.warn(`Subscriber: ${String(error)}`));
    await this.subscriber.subscribe(this.channel());
  }

  private channel(): string {
    return `${this.config.queue.prefix}:${this.topic}`;
  }

  // disconnect(), not quit(): a subscriber still waiting for an unreachable Redis must not
  // hold up the shutdown.
  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }
}
