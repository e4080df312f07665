import { Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { REDIS } from './redis.module';

/**
 * A Redis pub/sub channel of short messages between processes. A hint only: a message can be
 * lost with Redis, so whoever listens also has another way to learn the news.
 */
export abstract class RedisChannel implements OnApplicationShutdown {
  private readonly logger = new Logger(this.constructor.name);
  private subscriber?: Promise<Redis>;
  private readonly listeners = new Set<(message: string) => void>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
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
    this.subscriber ??= this.subscribe();
    await this.subscriber;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async subscribe(): Promise<Redis> {
    const subscriber = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    subscriber.on('message', (_channel: string, message: string) => {
      for (const notify of this.listeners) notify(message);
    });
    subscriber.on('error', (error) => this.logger.warn(`Subscriber: ${String(error)}`));
    await subscriber.subscribe(this.channel());
    return subscriber;
  }

  private channel(): string {
    return `${this.config.queue.prefix}:${this.topic}`;
  }

  async onApplicationShutdown(): Promise<void> {
    const subscriber = await this.subscriber?.catch(() => undefined);
    await subscriber?.quit().catch(() => undefined);
  }
}
