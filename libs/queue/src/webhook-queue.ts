import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { RedisConnection } from './redis-client';
import { redisClient } from './redis-client';
import { LogContext } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { redisDeadline } from './redis-deadline';

/**
 * The webhook deliveries' own queue, apart from the operations' queues: a slow or dead receiver
 * holds only webhook slots. A job pumps one endpoint (sends its due deliveries in order); it
 * carries the endpoint id only, and its job id is derived from it, so while one is waiting
 * further adds for the same endpoint are no-ops. Postgres keeps the deliveries: a lost job is
 * made again by the workers' sweep.
 */
/** Braced: a hash tag, so its keys share one Redis Cluster slot (see operationQueueName). */
export const WEBHOOK_QUEUE = '{webhook-deliveries}';
export const PUMP_WEBHOOK_ENDPOINT = 'pump-endpoint';

export interface WebhookPumpJobData {
  endpointId: string;
}

export function webhookPumpJobId(endpointId: string): string {
  return `pump-${endpointId}`;
}

/** The producer side of the webhook queue (the worker's notification listener and sweep). */
@Injectable()
export class WebhookQueue implements OnApplicationShutdown {
  private queue?: Queue<WebhookPumpJobData>;
  private connection?: RedisConnection;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Asks for a pump of the endpoint; fails within REDIS_TIMEOUT_MS when Redis is away. */
  async requestPump(endpointId: string): Promise<void> {
    const added = this.open().add(
      PUMP_WEBHOOK_ENDPOINT,
      { endpointId },
      { jobId: webhookPumpJobId(endpointId), removeOnComplete: true, removeOnFail: true },
    );
    await redisDeadline(added, this.config.queue.redisTimeoutMs, 'take the webhook job');
  }

  private open(): Queue<WebhookPumpJobData> {
    this.queue ??= LogContext.outside(() => {
      this.connection = redisClient(this.config, {
        maxRetriesPerRequest: 2,
        enableOfflineQueue: false,
      });
      return new Queue<WebhookPumpJobData>(WEBHOOK_QUEUE, {
        connection: this.connection,
        prefix: this.config.queue.prefix,
      });
    });
    return this.queue;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close();
    await this.connection?.quit().catch(() => undefined);
  }
}
